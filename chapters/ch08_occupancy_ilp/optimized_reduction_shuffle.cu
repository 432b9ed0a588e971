// Rung 1 of the reduction ladder. The one idea: sum a block with warp shuffles instead of a
// shared-memory tree. What changed from baseline_reduction: each warp adds its 32 values in 5
// register-to-register shuffles, only the 8 warp totals go through shared memory (one barrier),
// where the baseline halved 256 values in shared memory over 8 barrier-separated steps. Everything
// else is the baseline's: one 4-byte load per thread at the block's start, the same kernel again
// on the partials (2^28 → 2^20 → 4096 → 16 → 1, four launches).
// What it shows: whether the tree's barriers were the cost. The loads in flight per SM are the
// baseline's (≤ 8 KiB), so by chapter 7's copy measurements the kernel should stay
// latency-bound: the step to the next rung is where the bytes in flight grow.
// Accumulation: fp32 throughout, a pure tree 28 adds deep (as the baseline's).
// Bytes: 2^28 · 4 = 1 GiB read; FLOPs: 2^28 adds. Ceiling: HBM bandwidth (read).
#include "reduction_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void __launch_bounds__(kReduceThreads)
    reduce_shuffle_pass(const float* __restrict__ in, float* __restrict__ out, std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kReduceThreads + threadIdx.x;
  const float total = block_sum<float, kReduceThreads>(i < count ? in[i] : 0.0f);
  if (threadIdx.x == 0)
    out[blockIdx.x] = total;
}

}  // namespace

struct ReduceShuffle : MultiPassReduction<kReduceThreads> {
 protected:
  void launch_pass(const float* src, float* dst, std::size_t count, unsigned blocks,
                   cudaStream_t stream) override {
    reduce_shuffle_pass<<<blocks, kReduceThreads, 0, stream>>>(src, dst, count);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceShuffle)
