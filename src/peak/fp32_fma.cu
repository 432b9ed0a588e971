// FP32 FMA rate without tensor cores: every thread of a grid that fills each SM runs 16
// independent FMA chains (x = x·m + a), enough independent instructions per warp to hide the FMA
// latency, with the loop unrolled 16 deep so loop overhead stays near 1% of the issue slots.
// Multipliers in [0.25, 0.75] keep every chain converging to a normal number (no overflow, no
// denormals). FLOPs counted: 2 per FMA; no memory traffic to speak of.
#include <string>

#include "aisp/dtype.hpp"
#include "core/random_fill.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

constexpr int kFmaThreads = 256;
constexpr int kChains = 16;
constexpr int kUnroll = 16;
constexpr int kInputCount = 4096;
constexpr char kInputName[] = "bench_peak.fma_inputs";

// 2 · kChains · iterations FLOPs per thread; `iterations` is a multiple of kUnroll.
__global__ void __launch_bounds__(kFmaThreads)
    fma_chains_kernel(const float* __restrict__ inputs, int iterations, float* __restrict__ sink) {
  const int thread = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  float chain[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    chain[c] = inputs[(thread * kChains + c) % kInputCount];
  }
  // Read from memory, so the compiler cannot fold the chains into a closed form.
  const float multiplier = inputs[(thread + 7) % kInputCount];
  const float addend = inputs[(thread + 13) % kInputCount];
  for (int i = 0; i < iterations; i += kUnroll) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) {
        chain[c] = fmaf(chain[c], multiplier, addend);
      }
    }
  }
  float total = 0.f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    total += chain[c];
  }
  sink[thread] = total;
}

}  // namespace

PeakSamples measure_fp32_fma_rate(const GpuUnderTest& gpu, const RepetitionPlan& plan, bool quick) {
  const int blocks = full_grid_blocks(reinterpret_cast<const void*>(&fma_chains_kernel),
                                      kFmaThreads, gpu.sm_count);
  const double threads = static_cast<double>(blocks) * kFmaThreads;
  // A launch of a few milliseconds at the FP32 rate (≈ 200 GFLOP; quick: 20 GFLOP).
  const double target_flops = quick ? 2e10 : 2e11;
  int iterations = static_cast<int>(target_flops / (2.0 * kChains * threads)) + 1;
  iterations = (iterations + kUnroll - 1) / kUnroll * kUnroll;
  const double flops = 2.0 * kChains * static_cast<double>(iterations) * threads;

  CudaStream stream;
  DeviceMemory inputs(kInputCount * sizeof(float));
  DeviceMemory sink(static_cast<std::size_t>(threads) * sizeof(float));
  detail::fill_uniform_device(DType::f32, inputs.get(), kInputCount,
                              detail::fill_key(1, kInputName, sizeof(kInputName) - 1), 0.25, 0.75,
                              stream.get());

  const std::vector<double> milliseconds = time_stream_repetitions(stream.get(), plan, [&] {
    fma_chains_kernel<<<blocks, kFmaThreads, 0, stream.get()>>>(inputs.as<const float>(),
                                                                iterations, sink.as<float>());
    AISP_CHECK_LAUNCH();
  });
  PeakSamples samples;
  samples.values = rates_per_second(flops / 1e12, milliseconds_to_seconds(milliseconds));
  samples.method = std::to_string(kChains) + " independent FMA chains per thread, " +
                   std::to_string(iterations) + " steps, " + std::to_string(blocks) + " blocks x " +
                   std::to_string(kFmaThreads) +
                   " threads (every SM full), an FMA counted as 2 FLOPs";
  samples.tool = "aisp kernel";
  return samples;
}

}  // namespace aisp::peak
