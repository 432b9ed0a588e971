// The harness side of a Context: every allocation it handed out, the stream, the seed, the
// library handles. Freed in reverse order when the Context goes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "aisp/context.hpp"
#include "aisp/tensor.hpp"
#include "core/host_bytes.hpp"
#include "core/mark_sink.hpp"

namespace aisp {

struct ContextOptions {
  std::uint64_t seed = 0;
  int device = -1;                 // -1: CPU-only variant, no CUDA calls at all
  cudaStream_t stream = nullptr;   // the worker's measurement stream (not owned)
  int host_threads = 0;            // 0: hardware concurrency
  std::filesystem::path scratch_root;  // where scratch_dir() is created; empty: temp dir
};

namespace detail {

struct ContextState {
  explicit ContextState(ContextOptions options);
  ~ContextState();
  ContextState(const ContextState&) = delete;
  ContextState& operator=(const ContextState&) = delete;

  ContextOptions options;
  cudaDeviceProp properties{};
  std::vector<Tensor> tensors;
  cublasContext* cublas = nullptr;
  std::filesystem::path scratch;
  std::size_t allocated_bytes = 0;
  MarkSink* marks = nullptr;  // attached by the timer to the contexts it times; not owned
};

}  // namespace detail

std::unique_ptr<Context> make_context(ContextOptions options);

// Fills floats with NaN bit patterns (all bytes 0xFF) and integers with kIntegerPoisonByte,
// so an element the variant never wrote is recognizable.
inline constexpr unsigned char kFloatPoisonByte = 0xFF;
inline constexpr unsigned char kIntegerPoisonByte = 0xA5;
// Every byte value is a legitimate u8/i8 element (1 in 256 random bytes is 0xA5): integer
// outputs are also run under this second pattern, and an element is unwritten only when it
// holds each run's poison (a written element is the same in both runs).
inline constexpr unsigned char kIntegerPoisonAlternateByte = 0x5A;
void poison_tensor(const Tensor& tensor, cudaStream_t stream, bool alternate = false);

// Copies a tensor's contents to host memory (synchronizes the stream).
HostBytes read_tensor_bytes(const Tensor& tensor, cudaStream_t stream);

}  // namespace aisp
