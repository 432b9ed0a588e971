// Test-only GPU problem for ctx.mark: a prefill kernel over 16M floats, then decode steps that
// leave y unchanged (y * 1 + 0 is exact), so both variants' outputs equal 2x + 1.
#pragma once

#include <aisp/aisp.hpp>

namespace aisp::test_pairs {
namespace {
__global__ void prefill_kernel(const float* x, float* y, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = 2.0f * x[i] + 1.0f;
}
__global__ void decode_kernel(float* y, std::size_t n, int steps) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = y[i];
  for (int s = 0; s < steps; ++s) v = fmaf(v, 1.0f, 0.0f);
  y[i] = v;
}
}  // namespace

struct GpuMarkedProblem : Benchmark {
  static constexpr std::size_t kCount = std::size_t{1} << 24;
  static constexpr std::size_t kDecodeCount = 4096;  // the "tokens" a decode step touches
  static constexpr int kDecodeSteps = 64;
  Tensor x, y;
  Signature signature() const override { return Signature().set("n", kCount); }
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, kCount, Role::input);
    y = ctx.alloc("y", DType::f32, kCount, Role::output);
    ctx.fill_uniform(x);
  }
  std::vector<Tensor> outputs() const override { return {y}; }
  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * kCount * sizeof(float);
    w.counters = {{"tokens", kDecodeSteps, "tokens"}};
    return w;
  }

 protected:
  void prefill(Context& ctx) {
    prefill_kernel<<<132 * 4, 256, 0, ctx.stream()>>>(x.as<float>(), y.as<float>(), kCount);
    AISP_CHECK_LAUNCH();
  }
  void decode_steps(Context& ctx, int steps) {
    decode_kernel<<<(kDecodeCount + 255) / 256, 256, 0, ctx.stream()>>>(y.as<float>(),
                                                                       kDecodeCount, steps);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::test_pairs
