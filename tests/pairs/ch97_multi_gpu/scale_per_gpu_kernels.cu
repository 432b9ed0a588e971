// The kernels of the ch97 scale_per_gpu pairs, compiled once.
#include "scale_per_gpu_problem.cuh"

namespace aisp::test_pairs {
namespace {

__global__ void scale_one_per_thread(const float* x, float* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}

__global__ void scale_grid_stride(const float* x, float* y, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = 2.0f * x[i] + 1.0f;
}

}  // namespace

void launch_scale(const float* x, float* y, std::size_t n, cudaStream_t stream, bool grid_stride) {
  if (grid_stride)
    scale_grid_stride<<<264, 256, 0, stream>>>(x, y, n);
  else
    scale_one_per_thread<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, n);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::test_pairs
