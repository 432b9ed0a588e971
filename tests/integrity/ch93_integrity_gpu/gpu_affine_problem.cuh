// Test-only GPU problem for the integrity cheats: y = 2x + 1 over 2^24 floats (64 MiB each way,
// about 30 us on an H200). Each cheating variant overrides run() (and sometimes more).
#pragma once

#include <aisp/aisp.hpp>

namespace aisp::integrity_gpu {

namespace {
__global__ void affine_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
}  // namespace

struct GpuAffineProblem : Benchmark {
  static constexpr std::size_t kCount = std::size_t{1} << 24;
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
    return w;
  }
  TimingMode timing_mode() const override { return TimingMode::direct; }

 protected:
  void launch(cudaStream_t stream) {
    affine_kernel<<<static_cast<unsigned>((kCount + 255) / 256), 256, 0, stream>>>(
        x.as<float>(), y.as<float>(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::integrity_gpu
