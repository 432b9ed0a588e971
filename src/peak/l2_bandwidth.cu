// L2 read bandwidth: a buffer of half the L2 (so it stays resident once read) read many times
// per launch by a grid filling every SM. The loads are ld.global.cg (__ldcg: cached in L2, not in
// L1): each SM's share of the buffer would otherwise fit in its L1 and the repeats would measure
// L1. Four independent 16-byte loads per thread are in flight per step. Bytes counted: the bytes
// read (passes × buffer); the additions that keep the loads alive are negligible work.
#include <stdexcept>
#include <string>

#include "aisp/dtype.hpp"
#include "core/random_fill.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

constexpr int kReadThreads = 256;
constexpr int kLoadsInFlight = 4;
constexpr char kBufferName[] = "bench_peak.l2_buffer";

// Reads `count` float4 `passes` times; writes one float per thread (to `sink`) so the compiler
// cannot drop the loads.
__global__ void l2_read_kernel(const float4* __restrict__ data, std::size_t count, int passes,
                               float* __restrict__ sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float4 sums[kLoadsInFlight];
#pragma unroll
  for (int k = 0; k < kLoadsInFlight; ++k) {
    sums[k] = make_float4(0.f, 0.f, 0.f, 0.f);
  }
  for (int pass = 0; pass < passes; ++pass) {
    std::size_t i = first;
    for (; i + (kLoadsInFlight - 1) * stride < count; i += kLoadsInFlight * stride) {
      float4 loaded[kLoadsInFlight];
#pragma unroll
      for (int k = 0; k < kLoadsInFlight; ++k) {
        loaded[k] = __ldcg(data + i + k * stride);
      }
#pragma unroll
      for (int k = 0; k < kLoadsInFlight; ++k) {
        sums[k].x += loaded[k].x;
        sums[k].y += loaded[k].y;
        sums[k].z += loaded[k].z;
        sums[k].w += loaded[k].w;
      }
    }
    for (; i < count; i += stride) {
      const float4 loaded = __ldcg(data + i);
      sums[0].x += loaded.x;
      sums[0].y += loaded.y;
      sums[0].z += loaded.z;
      sums[0].w += loaded.w;
    }
  }
  float total = 0.f;
#pragma unroll
  for (int k = 0; k < kLoadsInFlight; ++k) {
    total += sums[k].x + sums[k].y + sums[k].z + sums[k].w;
  }
  sink[first] = total;
}

}  // namespace

PeakSamples measure_l2_read_bandwidth(const GpuUnderTest& gpu, const RepetitionPlan& plan,
                                      bool quick) {
  if (gpu.l2_bytes < 2 * sizeof(float4)) {
    throw std::runtime_error("the device reports no L2 size (cudaDeviceProp::l2CacheSize is " +
                             std::to_string(gpu.l2_bytes) + "), so no buffer can be sized to it");
  }
  const std::size_t buffer_bytes = gpu.l2_bytes / 2 / sizeof(float4) * sizeof(float4);
  const std::size_t count = buffer_bytes / sizeof(float4);
  // Enough passes for a launch of a few milliseconds at L2 speeds (≈ 16 GB read; quick: 2 GB).
  const double target_bytes = quick ? 2e9 : 16e9;
  const int passes = static_cast<int>(target_bytes / static_cast<double>(buffer_bytes)) + 1;

  const int blocks =
      full_grid_blocks(reinterpret_cast<const void*>(&l2_read_kernel), kReadThreads, gpu.sm_count);
  const std::size_t threads = static_cast<std::size_t>(blocks) * kReadThreads;
  CudaStream stream;
  DeviceMemory buffer(buffer_bytes);
  DeviceMemory sink(threads * sizeof(float));
  detail::fill_uniform_device(DType::f32, buffer.get(), buffer_bytes / sizeof(float),
                              detail::fill_key(1, kBufferName, sizeof(kBufferName) - 1), -1.0, 1.0,
                              stream.get());

  const std::vector<double> milliseconds = time_stream_repetitions(stream.get(), plan, [&] {
    l2_read_kernel<<<blocks, kReadThreads, 0, stream.get()>>>(buffer.as<const float4>(), count,
                                                              passes, sink.as<float>());
    AISP_CHECK_LAUNCH();
  });
  PeakSamples samples;
  samples.values =
      rates_per_second(static_cast<double>(passes) * static_cast<double>(buffer_bytes) / 1e9,
                       milliseconds_to_seconds(milliseconds));
  samples.method = "reads of a " + size_text(buffer_bytes) + " buffer (half the " +
                   size_text(gpu.l2_bytes) + " L2), " + std::to_string(passes) +
                   " passes per launch, ld.global.cg float4 loads, 4 in flight per thread, " +
                   std::to_string(blocks) + " blocks x " + std::to_string(kReadThreads) +
                   " threads, bytes read";
  samples.tool = "aisp kernel";
  return samples;
}

}  // namespace aisp::peak
