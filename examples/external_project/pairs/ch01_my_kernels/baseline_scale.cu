// One float per thread.
#include "scale_common.cuh"

namespace my_kernels {
namespace {
__global__ void scale_scalar(const float* x, float* y, std::size_t n, float a) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
}  // namespace

struct ScaleScalar : ScaleProblem {
  void run(aisp::Context& ctx) override {
    const unsigned blocks = static_cast<unsigned>((kCount + 255) / 256);
    scale_scalar<<<blocks, 256, 0, ctx.stream()>>>(x.as<float>(), y.as<float>(), kCount, kFactor);
    AISP_CHECK_LAUNCH();
  }
};
}  // namespace my_kernels
AISP_VARIANT(my_kernels::ScaleScalar)
