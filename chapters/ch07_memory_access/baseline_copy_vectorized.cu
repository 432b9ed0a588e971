// Baseline: a coalesced scalar copy, one 4-byte load and one 4-byte store per thread per
// iteration of a grid-stride loop, 8 blocks of 256 threads per SM (2048 threads: full
// occupancy). Coalescing is not the problem here: every sector fetched is used. The limit is
// how many bytes are in flight: each thread waits for its 4-byte load before its store and its
// next load, so an SM has at most 2048 × 4 B = 8 KiB of loads outstanding, well short of what
// HBM needs to stay busy (by Little's law, ~4.3 TB/s × several hundred ns ÷ 132 SMs ≈ 20 KiB).
// Bytes: 2 GiB (1 GiB read + 1 GiB written); 0 FLOPs. Ceiling: HBM bandwidth.
#include "copy_vectorized_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kBlocksPerSm = 8;

__global__ void copy_scalar(const float* __restrict__ in, float* __restrict__ out,
                            std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    out[i] = in[i];
}

}  // namespace

struct CopyScalar : VectorizedCopyProblem {
  void run(aisp::Context& ctx) override {
    copy_scalar<<<grid(kBlocksPerSm), kThreads, 0, ctx.stream()>>>(in(), out(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::CopyScalar)
