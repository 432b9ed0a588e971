// Baseline: the textbook elementwise kernel, one float per thread, 2^28 / 256 = 2^20 blocks of
// 256 threads. Every access is coalesced (a warp reads and writes 128 contiguous bytes), so no
// sector is wasted; what limits it is how much each thread asks for at once: one 4-byte load,
// which it must wait for before its store. A full SM (2048 threads) then has at most 8 KiB of
// loads in flight, under what HBM needs to stay busy at 4+ TB/s (by Little's law, bandwidth ×
// latency ≈ 4.3 TB/s × ~600 ns ≈ 2.6 MB across the chip, ~20 KiB per SM), and the SM issues one
// load and one store instruction per 128 bytes moved.
// Bytes: 2·n·4 = 2 GiB; 2·n FLOPs. Ceiling: HBM bandwidth.
#include "elementwise_vectorized_common.cuh"

namespace aisp::ch06 {
namespace {

constexpr int kThreads = 256;

__global__ void affine_scalar(const float* __restrict__ x, float* __restrict__ y, float a, float b,
                              std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < count)
    y[i] = fmaf(a, x[i], b);
}

}  // namespace

struct AffineScalar : ElementwiseVectorizedProblem {
  void run(aisp::Context& ctx) override {
    const auto blocks = static_cast<unsigned>((kCount + kThreads - 1) / kThreads);
    affine_scalar<<<blocks, kThreads, 0, ctx.stream()>>>(x(), y(), kScale, kShift, kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::AffineScalar)
