// What `aisp bench peak` measures, one entry point per figure (or per group of figures that
// share buffers), each in its own file of src/peak/. Every entry point runs on the current device,
// times several repetitions after a warm-up, and returns one figure per repetition: the caller
// takes the median. Inputs are random (never zeros, which some hardware moves or multiplies
// faster). CUDA failures throw aisp::CudaError; everything allocated is freed on the way out.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_handles.hpp"
#include "peak/nccl_busbw.hpp"

namespace aisp::peak {

// The device a measurement runs on, read off it once.
struct GpuUnderTest {
  int device = 0;
  std::string name;
  int compute_capability = 0;  // major * 10 + minor
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t free_bytes = 0;  // free device memory before the first measurement
};

// How many repetitions to time, after how much warm-up (clocks ramp, caches and library
// heuristics settle).
struct RepetitionPlan {
  int repetitions = 20;
  double warmup_s = 0.2;
};

struct PeakSamples {
  std::vector<double> values;  // one figure per timed repetition, in the figure's unit
  std::string method;          // what one repetition does: sizes, launch shape, counts
  std::string tool;            // what did the work: "cudaMemcpyAsync", "cuBLAS 13.0.2 ...", ...
};

// "4 GiB", "256 MiB", "30.0 MiB": a size for `method` strings.
inline std::string size_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (bytes % (kMiB << 10) == 0) {
    return std::to_string(bytes / (kMiB << 10)) + " GiB";
  }
  if (bytes % kMiB == 0) {
    return std::to_string(bytes / kMiB) + " MiB";
  }
  const std::size_t tenths = (bytes * 10 + kMiB / 2) / kMiB;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

// --- measurement_support.cpp

// Calls `enqueue` (which puts work on `stream`) until `warmup_s` of device time has passed (at
// least once), then `repetitions` more times, each bracketed by events. Milliseconds per call.
std::vector<double> time_stream_repetitions(cudaStream_t stream, const RepetitionPlan& plan,
                                            const std::function<void()>& enqueue);
// The same on the host clock: `run` returns when its work is complete. Seconds per call.
std::vector<double> time_host_repetitions(const RepetitionPlan& plan,
                                          const std::function<void()>& run);

// Blocks that fill every SM at the kernel's occupancy for `threads` per block: a grid-stride
// loop then covers its data in one wave.
int full_grid_blocks(const void* kernel, int threads, int sm_count);
// amount / seconds for each entry: bytes -> bytes/s, FLOPs -> FLOP/s.
std::vector<double> rates_per_second(double amount, const std::vector<double>& seconds);
std::vector<double> milliseconds_to_seconds(std::vector<double> milliseconds);

// --- hbm_copy.cu: device-to-device copy bandwidth, bytes read + written, GB/s.
class DeviceCopyBenchmark {
 public:
  // Two buffers of `bytes` (a multiple of 16) on the current device; the source holds random
  // floats.
  DeviceCopyBenchmark(std::size_t bytes, const GpuUnderTest& gpu);
  // cudaMemcpyAsync device to device: the hbm_bandwidth ceiling.
  PeakSamples measure_memcpy(const RepetitionPlan& plan);
  // A plain grid-stride kernel copying one float4 per thread per step: what an SM-driven copy
  // without further tricks reaches. Information.
  PeakSamples measure_float4_kernel(const RepetitionPlan& plan);

 private:
  // Throws when the destination differs from the source anywhere: a copy that did not happen
  // must not be timed as one.
  void check_destination(const char* copier);

  GpuUnderTest gpu_;
  std::size_t bytes_;
  CudaStream stream_;
  DeviceMemory source_, destination_, mismatches_;
};

// --- l2_bandwidth.cu: a kernel reading a buffer of half the L2 (so it stays resident) many times
// with L2-only loads; bytes read, GB/s.
PeakSamples measure_l2_read_bandwidth(const GpuUnderTest& gpu, const RepetitionPlan& plan,
                                      bool quick);

// --- fp32_fma.cu: independent FMA chains in every thread of a full grid; TFLOP/s (an FMA counts
// as 2 FLOPs).
PeakSamples measure_fp32_fma_rate(const GpuUnderTest& gpu, const RepetitionPlan& plan, bool quick);

// --- gemm_rates.cpp: square GEMMs through cuBLAS / cuBLASLt on random data; TFLOP/s (2·n³).
enum class GemmPrecision {
  fp32,      // cublasGemmEx, CUBLAS_COMPUTE_32F: SGEMM without tensor cores
  tf32,      // cublasGemmEx, fp32 data, CUBLAS_COMPUTE_32F_FAST_TF32
  bf16,      // cublasGemmEx, bf16 in and out, fp32 accumulate
  fp16,      // cublasGemmEx, fp16 in and out, fp32 accumulate
  fp8_e4m3,  // cublasLtMatmul, e4m3 in (TN), bf16 out, fp32 accumulate, unit scales
};
// Why this GPU cannot run it (FP8 needs compute capability 8.9), or nullopt.
std::optional<std::string> gemm_unsupported(GemmPrecision precision, const GpuUnderTest& gpu);
// Also spot-checks a few output elements against a float64 dot product of the same inputs.
PeakSamples measure_gemm_rate(GemmPrecision precision, int n, const RepetitionPlan& plan);

// --- host_transfers.cpp: 1 GiB cudaMemcpy between host and device; bytes transferred, GB/s.
enum class HostTransfer {
  host_to_device_pinned,
  device_to_host_pinned,
  host_to_device_pageable,
  device_to_host_pageable,
};
// Pageable copies move with where the buffer's pages happen to lie: on H200 hosts one 1 GiB
// buffer copied at 6.6 GB/s and the next, allocated the same way, at 8.4 (docs/peaks.md). So a
// pageable figure spreads its repetitions over `pageable_allocations` fresh buffers, each written
// in full (no first-touch faults timed) and copied once untimed before its repetitions.
class HostTransferBenchmark {
 public:
  // A device buffer and a pinned host buffer of `bytes`, holding random data.
  HostTransferBenchmark(std::size_t bytes, int pageable_allocations);
  PeakSamples measure(HostTransfer transfer, const RepetitionPlan& plan);

 private:
  std::size_t bytes_;
  int pageable_allocations_;
  DeviceMemory device_;
  PinnedHostMemory pinned_;
};

// --- host_memory.cpp: host memory copy bandwidth, every hardware thread copying a band of
// `bytes`; bytes read + written, GB/s. Needs no GPU.
PeakSamples measure_host_memory_bandwidth(std::size_t bytes, const RepetitionPlan& plan);

// --- peer_copy.cpp: cudaMemcpyPeerAsync from device `from` to device `to`; bytes copied (one
// direction), GB/s. Uses peer access when the pair supports it (and says so in `method`).
PeakSamples measure_peer_copy(int from, int to, std::size_t bytes, const RepetitionPlan& plan);
// Both directions at once (a copy each way, each on its source GPU's stream, timed around both on
// `first`'s); bytes copied in both directions, GB/s.
PeakSamples measure_peer_copy_both_ways(int first, int second, std::size_t bytes,
                                        const RepetitionPlan& plan);

// --- nccl_collectives.cpp: NCCL's bus bandwidth (nccl_busbw.hpp) for one collective over GPUs
// 0 .. gpus-1 (one process, one rank per GPU), at every size of `sizes` (nccl-tests' size: one
// rank's whole buffer, rounded to whole floats per rank); one figure per repetition at the largest
// size, GB/s; `method` lists every size's median. Throws aisp::Unavailable without NCCL.
PeakSamples measure_nccl_bus_bandwidth(NcclCollective collective, int gpus,
                                       const std::vector<std::size_t>& sizes,
                                       const RepetitionPlan& plan);

// --- launch_costs.cu: empty kernels, host clock, microseconds per launch (or per graph node).
// Launch, then cudaStreamSynchronize, `launches` times.
PeakSamples measure_launch_with_sync(int launches, const RepetitionPlan& plan);
// `launches` launches back to back, then one synchronize: the asynchronous enqueue rate.
PeakSamples measure_launch_async(int launches, const RepetitionPlan& plan);
// A graph of `nodes` empty kernels captured from a stream, replayed: cost per node.
PeakSamples measure_graph_node_cost(int nodes, const RepetitionPlan& plan);

}  // namespace aisp::peak
