// What the harness hands a benchmark: the stream to launch on, the seed to fill inputs from,
// harness-owned allocations, and shared library handles whose global policy the harness sets.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aisp/dtype.hpp"
#include "aisp/tensor.hpp"

struct cublasContext;
struct ncclComm;  // ncclComm_t is `ncclComm*` (nccl.h); aisp/nccl.hpp has the functions

namespace aisp {

namespace detail {
struct ContextState;
}

class Context {
 public:
  explicit Context(std::unique_ptr<detail::ContextState> state);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // All device work of run() goes on this stream. nullptr for CPU-only variants.
  cudaStream_t stream() const;

  // Multi-GPU pairs (Requirements::min_gpus > 1; docs/multi-gpu.md). The run's GPUs are the CUDA
  // devices 0 .. device_count() - 1: a pair's min_gpus, or `bench run --gpus N`. 1 for every
  // other GPU pair, 0 for CPU-only ones.
  int device_count() const;
  // The stream of `device` (0 <= device < device_count()); stream(device()) is stream(). The
  // timer records events on every one of them: work of run() on another GPU goes on its stream,
  // and the sample is the slowest device's time. Throws std::out_of_range outside the run's GPUs.
  cudaStream_t stream(int device) const;
  // The job's ranks (docs/multi-gpu.md, "Several hosts"). In one process the run's GPUs are its
  // ranks: rank(d) == d and rank_count() == device_count(). Under `mpirun` each process drives
  // one local GPU (device_count() == 1) and is one rank of rank_count(): rank(0) is its global
  // rank, and ctx.nccl(0) is that rank of a communicator over every process. A multi-GPU pair
  // written against these runs either way: name per-GPU inputs by rank(d) (each GPU's data then
  // is the same in both), size shards by rank_count(). rank_count() is 0 for CPU-only variants;
  // rank() throws std::out_of_range outside the run's GPUs, as stream() does.
  int rank(int device) const;
  int rank_count() const;
  // Whether `device` can load and store `peer`'s memory directly (NVLink or PCIe peer access).
  // The harness enables peer access between every two GPUs of the run where this is true.
  bool peer_access(int device, int peer) const;

  // Seed for deterministic inputs. Verification runs with other seeds than timing.
  std::uint64_t seed() const;

  bool has_gpu() const;
  int device() const;
  // Properties of the device the variant runs on. Throws for CPU-only variants.
  const cudaDeviceProp& device_properties() const;

  // A harness-owned allocation; freed after teardown. Contents are undefined until filled.
  Tensor alloc(std::string name, DType dtype, std::size_t count, Role role,
               Memory memory = Memory::device);
  // The same on GPU `device` of the run (device memory: cudaMalloc there; pinned memory is
  // portable to every GPU). Its fills run on stream(device); verification compares its outputs
  // and hashes its inputs like any other tensor's.
  Tensor alloc(std::string name, DType dtype, std::size_t count, Role role, Memory memory,
               int device);

  // Fills a floating-point tensor with values uniform in [lo, hi), a function of (seed, tensor
  // name, index) only: baseline and optimized variants naming their inputs alike get equal data.
  // Works on every Memory kind; device fills are enqueued on stream() and synchronized.
  void fill_uniform(const Tensor& tensor, double lo = -1.0, double hi = 1.0);
  // Integers uniform in [lo, hi] for integer tensors.
  void fill_uniform_int(const Tensor& tensor, std::int64_t lo, std::int64_t hi);

  // A cuBLAS handle bound to stream(), created on first use with the harness's math policy
  // (default math mode, no TF32 unless the variant asks for it in its own calls).
  cublasContext* cublas();

  // The harness's NCCL communicator of GPU `device`: one rank per GPU of the run, in one process
  // (ncclCommInitAll over devices 0 .. device_count() - 1), or under `mpirun` rank(0) of
  // rank_count() processes (ncclCommInitRank, its ncclUniqueId passed on by the launcher's
  // processes), created on first use and destroyed after teardown. Its collectives go on stream(device), inside ncclGroupStart/ncclGroupEnd when
  // one thread drives several ranks. Throws aisp::Unavailable (a skip with the reason) when this
  // build has no nccl.h or libnccl.so.2 cannot be loaded; aisp/nccl.hpp has the functions.
  ncclComm* nccl(int device);

  // A directory the variant may write files into (host I/O pairs); removed after teardown.
  const std::filesystem::path& scratch_dir();

  // Number of host threads the variant may use (hardware concurrency unless limited).
  int host_threads() const;

  // Marks a point inside run(): the results report, per name, the time from the start of run()
  // to this point of its work, over every timed sample (the stream's position for GPU variants,
  // the host clock for CPU ones). For phases a whole-run time hides: time to first token, the
  // end of prefill. Reach each name once per run(), every run; a variant that marks is timed
  // call by call (never graph replay). Does nothing outside timed samples (verification).
  // docs/contract.md ("Marks").
  void mark(std::string_view name);

  // Every tensor allocated so far, in order. For the harness's checks.
  const std::vector<Tensor>& tensors() const;

  detail::ContextState& state() { return *state_; }

 private:
  std::unique_ptr<detail::ContextState> state_;
};

// Makes `device` the calling thread's current CUDA device until the scope ends, then restores the
// previous one: kernels and allocations of a multi-GPU run() on another GPU go inside one.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace aisp
