// Baseline: branch on the threshold, and read each side's coefficient inside its branch:
//   x = load; if (x > 0) y = above(x, load a) else y = below(x, load b).
// A warp whose lanes split runs one side with the other side's lanes masked off, then the other
// side, then reconverges. Each side's load needs x (it sits behind the branch), and the second
// side's load does not issue until the first side is done: a split warp waits out three memory
// latencies back to back (x, then a, then b), each with one 4-byte load per lane in flight. (If
// ptxas if-converts the two short sides into predicated instructions, the a and b loads can issue
// together, still behind x: two latencies. PTX for this file has the branch; the SASS was not
// inspected.) At 64 warps per SM that is at most 64 × 128 B = 8 KiB outstanding per SM, well
// under what HBM needs (~20 KiB by Little's law).
// Bytes: 1 GiB (x, a, b read; y written); FLOPs: 3 per element. Ceiling: HBM bandwidth.
#include "predication_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void threshold_branch(const float* __restrict__ x, const float* __restrict__ a,
                                 const float* __restrict__ b, float* __restrict__ y) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const float xi = x[i];
  float yi;
  if (xi > kPredicationThreshold)
    yi = piece_above(xi, a[i]);
  else
    yi = piece_below(xi, b[i]);
  y[i] = yi;
}

}  // namespace

struct ThresholdBranch : PredicationProblem {
  void run(aisp::Context& ctx) override {
    threshold_branch<<<blocks(), kThreads, 0, ctx.stream()>>>(x(), a(), b(), y());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ThresholdBranch)
