// Baseline: the column walk as a rolled loop (#pragma unroll 1: one row per trip). Each trip
// loads a[r][c] and adds it to the running sum; the add waits for the load, and the next trip's
// load, behind it in the instruction stream, cannot issue before the add does (a warp issues in
// order). So a thread has one 4-byte load in flight at a time, an SM ~16 warps × 128 B = 2 KiB:
// a tenth of what HBM needs in flight per SM (~20 KiB by Little's law), and each trip also pays
// the loop's own instructions (index, compare, branch) for one add. A rolled loop is what you get
// when the compiler cannot or will not unroll (a large body, an unknown trip count) or is told
// not to.
// Bytes: 1 GiB read + 256 KiB written; FLOPs: 2^28 adds. Ceiling: HBM bandwidth.
#include "loop_unroll_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void column_sum_rolled(const float* __restrict__ a, float* __restrict__ out) {
  const int c = static_cast<int>(blockIdx.x) * kColumnSumThreads + static_cast<int>(threadIdx.x);
  const float* column = a + c;
  float sum = 0.0f;
#pragma unroll 1
  for (int r = 0; r < kColumnSumRows; ++r)
    sum += column[static_cast<std::size_t>(r) * kColumnSumCols];
  out[c] = sum;
}

}  // namespace

struct ColumnSumRolled : LoopUnrollProblem {
  void run(aisp::Context& ctx) override {
    column_sum_rolled<<<blocks(), kColumnSumThreads, 0, ctx.stream()>>>(a(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ColumnSumRolled)
