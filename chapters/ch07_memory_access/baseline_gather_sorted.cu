// Baseline: gather in index order. Warp i reads idx[i], sums table row idx[i] (1 KiB, two
// coalesced 16-byte loads per lane) and writes out[i]. Each access is efficient on its own; the
// order is what costs. Consecutive warps ask for unrelated rows spread over 1 GiB, so the rows in
// flight at any moment are scattered over the whole table, and a row asked for again (4 times on
// average) is asked for long after the 60 MiB L2 has evicted it: ~94% of the 4 GiB of row reads
// (2^22 × 1 KiB) come from HBM, about 4× the table itself.
// Bytes: the table once + indices + output = 1 GiB + 32 MiB at the least (≈ 4 GiB moved here);
// FLOPs: 255 adds per row, 1.07 G. Ceiling: HBM bandwidth.
#include "gather_sorted_common.cuh"

namespace aisp::ch07 {
namespace {

__global__ void __launch_bounds__(GatherSortedProblem::kWarpsPerBlock * 32)
    gather_row_sums_in_order(const float* __restrict__ table, const int* __restrict__ idx,
                             float* __restrict__ out) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int i = static_cast<int>(blockIdx.x) * GatherSortedProblem::kWarpsPerBlock +
                static_cast<int>(threadIdx.x) / 32;  // grid covers kIndices exactly
  const int row = idx[i];
  const float s =
      warp_row_sum(table + static_cast<std::size_t>(row) * GatherSortedProblem::kRowFloats, lane);
  if (lane == 0)
    out[i] = s;
}

}  // namespace

struct GatherInOrder : GatherSortedProblem {
  void run(aisp::Context& ctx) override {
    gather_row_sums_in_order<<<grid(), block(), 0, ctx.stream()>>>(table(), idx(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::GatherInOrder)
