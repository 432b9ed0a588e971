// Test-only GPU problem for ctx.mark: a "prefill", tests/support's y = 2x + 1 over 16M floats,
// then decode steps that leave y unchanged (y * 1 + 0 is exact), so both variants' outputs equal
// 2x + 1.
#pragma once

#include "gpu_affine_problem.cuh"

namespace aisp::test_pairs {
namespace {
__global__ void decode_kernel(float* y, std::size_t n, int steps) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = y[i];
  for (int s = 0; s < steps; ++s)
    v = fmaf(v, 1.0f, 0.0f);
  y[i] = v;
}
}  // namespace

struct GpuMarkedProblem : GpuAffine<std::size_t{1} << 24> {
  static constexpr std::size_t kDecodeCount = 4096;  // the "tokens" a decode step touches
  static constexpr int kDecodeSteps = 64;
  Workload workload() const override {
    Workload w = GpuAffine::workload();
    w.counters = {{"tokens", kDecodeSteps, "tokens"}};
    return w;
  }

 protected:
  void prefill(Context& ctx) { launch(ctx.stream()); }
  void decode_steps(Context& ctx, int steps) {
    decode_kernel<<<(kDecodeCount + 255) / 256, 256, 0, ctx.stream()>>>(y.as<float>(), kDecodeCount,
                                                                        steps);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::test_pairs
