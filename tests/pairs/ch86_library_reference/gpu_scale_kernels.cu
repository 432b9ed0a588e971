// The kernels of ch86:gpu_scale: y = 2x, read once and written once (8 bytes per element).
#include "gpu_scale_problem.cuh"

namespace aisp::test_pairs {
namespace {

__global__ void scale_grid_stride(const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    y[i] = 2.0f * x[i];
}

__global__ void scale_per_element(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

}  // namespace

// 32 blocks of 128 threads: too few loads in flight to approach HBM bandwidth.
void launch_scale_grid_stride(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  scale_grid_stride<<<32, 128, 0, stream>>>(x, y, n);
  AISP_CHECK_LAUNCH();
}

void launch_scale_per_element(const float* x, float* y, std::size_t n, cudaStream_t stream) {
  scale_per_element<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::test_pairs
