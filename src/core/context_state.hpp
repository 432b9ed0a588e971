// The harness side of a Context: every allocation it handed out, the stream, the seed, the
// library handles. Freed in reverse order when the Context goes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "aisp/context.hpp"
#include "aisp/tensor.hpp"
#include "core/host_bytes.hpp"
#include "core/mark_sink.hpp"
#include "core/random_fill.hpp"

namespace aisp {

struct ContextOptions {
  std::uint64_t seed = 0;
  int device = -1;                 // -1: CPU-only variant, no CUDA calls at all
  cudaStream_t stream = nullptr;   // the worker's measurement stream (not owned)
  int host_threads = 0;            // 0: hardware concurrency
  std::filesystem::path scratch_root;  // where scratch_dir() is created; empty: temp dir
  // How ctx.fill_uniform draws values (verification's varied-input passes); never visible
  // through the public Context.
  detail::InputDistribution distribution = detail::InputDistribution::uniform;
};

// One ctx.fill_uniform / fill_uniform_int call: enough to recompute any element of the fill
// (detail::uniform_values_at), for the checks that change a few input elements in place and for
// the rule that a tensor filled like an input is declared an input.
struct FillRecord {
  std::string tensor;  // the tensor's name (the fill's key with the seed)
  DType dtype = DType::f32;
  bool integer = false;
  double lo = 0, hi = 0;                // floating fills
  std::int64_t int_lo = 0, int_hi = 0;  // integer fills
  detail::InputDistribution distribution = detail::InputDistribution::uniform;
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
  std::vector<FillRecord> fills;  // in call order; a tensor filled twice appears twice
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
