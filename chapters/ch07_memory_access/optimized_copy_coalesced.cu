// Optimized: the same one-element-per-thread copy with consecutive threads on consecutive
// elements. What changed: only the index, i = t. Why it is faster: a warp's 32 loads (and its 32
// stores) now fall in one 128-byte line, four full 32-byte sectors, so each memory instruction
// costs 4 sector transactions instead of 32 and every byte fetched is used.
// Bytes: 2 GiB (1 GiB read + 1 GiB written); 0 FLOPs. Ceiling: HBM bandwidth.
#include "copy_coalesced_common.cuh"

namespace aisp::ch07 {
namespace {

__global__ void copy_row_order(const float* __restrict__ in, float* __restrict__ out,
                               std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  out[i] = in[i];
}

}  // namespace

struct CopyRowOrder : CoalescedCopyProblem {
  void run(aisp::Context& ctx) override {
    copy_row_order<<<kBlocks, kThreads, 0, ctx.stream()>>>(in(), out(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::CopyRowOrder)
