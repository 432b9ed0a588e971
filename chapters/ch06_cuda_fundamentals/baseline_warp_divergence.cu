// Baseline: one element per thread, thread i computing element i. Every warp holds 16 even and 16
// odd elements, so at `if (i & 1)` every warp splits: the SM runs the Horner chain with the 16
// odd lanes masked off, then the Chebyshev chain with the 16 even lanes masked off, and the warp
// reconverges after both. Each warp issues both ~48-FMA chains while every lane uses only one:
// half of the issued FMA slots do no work, and the FMA time (~2× the HBM time) becomes the bound.
// Bytes: 2·n·4 = 512 MiB; ~95.5·n FLOPs (~6.4 GFLOP). Ceiling: HBM bandwidth and FP32 SIMT math,
// at balance (see warp_divergence_common.cuh).
#include "warp_divergence_common.cuh"

namespace aisp::ch06 {
namespace {

constexpr int kThreads = 256;

__global__ void transform_by_index(const float* __restrict__ x, float* __restrict__ y,
                                   std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < count)
    y[i] = transform(x[i], i);
}

}  // namespace

struct TransformByIndex : WarpDivergenceProblem {
  void run(aisp::Context& ctx) override {
    const auto blocks = static_cast<unsigned>((kCount + kThreads - 1) / kThreads);
    transform_by_index<<<blocks, kThreads, 0, ctx.stream()>>>(x(), y(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::TransformByIndex)
