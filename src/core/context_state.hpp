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

struct ncclComm;

namespace aisp {

class RankExchange;

struct ContextOptions {
  std::uint64_t seed = 0;
  int device = -1;                 // -1: CPU-only variant, no CUDA calls at all
  cudaStream_t stream = nullptr;   // the worker's measurement stream (not owned)
  // A multi-GPU run (docs/multi-gpu.md): one stream per GPU of the run, indexed by CUDA device,
  // device_streams[device] == stream (not owned). Empty: the run uses the one GPU `device`.
  std::vector<cudaStream_t> device_streams;
  int host_threads = 0;            // 0: hardware concurrency
  // Under `mpirun` (docs/multi-gpu.md, "Several hosts"): this process's rank among the job's,
  // through which ctx.nccl() builds its communicator and the harness agrees with the other ranks
  // (not owned). Null in one process, and for a one-GPU pair, which runs on rank 0 alone.
  RankExchange* ranks = nullptr;
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
  std::vector<ncclComm*> nccl;    // ctx.nccl()'s communicators, one per GPU, once asked for
};

}  // namespace detail

// How many GPUs a context with these options uses: 0 for CPU-only, else its device streams (at
// least 1).
int run_device_count(const ContextOptions& options);
// Waits for all work on every GPU of the run (cudaDeviceSynchronize on each); leaves the primary
// device current. Does nothing for CPU-only options.
void synchronize_run_devices(const ContextOptions& options);

std::unique_ptr<Context> make_context(ContextOptions options);

// Fills floats with NaN bit patterns (all bytes 0xFF) and integers with kIntegerPoisonByte,
// so an element the variant never wrote is recognizable.
inline constexpr unsigned char kFloatPoisonByte = 0xFF;
inline constexpr unsigned char kIntegerPoisonByte = 0xA5;
// Every byte value is a legitimate u8/i8 element (1 in 256 random bytes is 0xA5): integer
// outputs are also run under this second pattern, and an element is unwritten only when it
// holds each run's poison (a written element is the same in both runs).
inline constexpr unsigned char kIntegerPoisonAlternateByte = 0x5A;
// Poisons and reads below work on a tensor of any GPU of the run: one on another device than
// `stream`'s is set or read there, synchronously, after that device's queued work.
void poison_tensor(const Tensor& tensor, cudaStream_t stream, bool alternate = false);
// Whether device or managed memory `tensor` lives on the device of `stream` (the current device
// when null); always true for host and pinned memory. Kernels the harness launches on `stream`
// (device hashes and comparisons) may read it only then.
bool on_stream_device(const Tensor& tensor, cudaStream_t stream);

// Copies a tensor's contents to host memory (synchronizes the stream).
HostBytes read_tensor_bytes(const Tensor& tensor, cudaStream_t stream);

}  // namespace aisp
