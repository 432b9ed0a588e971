// Test-only GPU problem shared by the GPU test pairs: y = 2x + 1 over Count floats on the device,
// one thread per element. ch90's needs_gpu pair runs it as it is, ch93's integrity cheats override
// run() (and sometimes more), ch95's gpu_marked pair uses it as the "prefill" of a generation.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::test_pairs {

namespace {
__global__ void affine_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i] + 1.0f;
}
}  // namespace

template <std::size_t Count, TimingMode Timing = TimingMode::automatic>
struct GpuAffine : Benchmark {
  static constexpr std::size_t kCount = Count;
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
  TimingMode timing_mode() const override { return Timing; }

 protected:
  void launch(cudaStream_t stream) {
    affine_kernel<<<static_cast<unsigned>((kCount + 255) / 256), 256, 0, stream>>>(
        x.template as<float>(), y.template as<float>(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::test_pairs
