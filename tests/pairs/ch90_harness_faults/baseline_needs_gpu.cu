// A GPU pair in the test suite: on a machine without a GPU it must be skipped with a reason; on
// the GPU machine it must pass. y = 2x + 1 on the device.
#include <aisp/aisp.hpp>

namespace aisp::test_pairs {
namespace {
__global__ void affine_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
}  // namespace

struct GpuAffineBaseline : Benchmark {
  static constexpr std::size_t kCount = 1 << 20;
  Tensor x, y;
  Signature signature() const override { return Signature().set("n", kCount); }
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, kCount, Role::input);
    y = ctx.alloc("y", DType::f32, kCount, Role::output);
    ctx.fill_uniform(x);
  }
  void run(Context& ctx) override {
    affine_kernel<<<(kCount + 255) / 256, 256, 0, ctx.stream()>>>(x.as<float>(), y.as<float>(),
                                                                  kCount);
    AISP_CHECK_LAUNCH();
  }
  std::vector<Tensor> outputs() const override { return {y}; }
  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * kCount * sizeof(float);
    return w;
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::GpuAffineBaseline)
