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

constexpr std::size_t pass_blocks(std::size_t count) {
  return (count + kReduceThreads - 1) / kReduceThreads;
}

}  // namespace

struct ReduceShuffle : ReductionProblem {
  void setup(aisp::Context& ctx) override {
    ReductionProblem::setup(ctx);
    // One scratch buffer holds every level of partials but the last (which is the output).
    std::size_t levels = 0;
    for (std::size_t count = kCount; pass_blocks(count) > 1; count = pass_blocks(count))
      levels += pass_blocks(count);
    partials_ = ctx.alloc("shuffle_partials", aisp::DType::f32, levels, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const float* src = in();
    float* next = partials_.as<float>();
    for (std::size_t count = kCount; count > 1;) {
      const std::size_t blocks = pass_blocks(count);
      float* dst = blocks == 1 ? out() : next;
      reduce_shuffle_pass<<<static_cast<unsigned>(blocks), kReduceThreads, 0, ctx.stream()>>>(
          src, dst, count);
      AISP_CHECK_LAUNCH();
      src = dst;
      next += blocks;
      count = blocks;
    }
  }

 private:
  aisp::Tensor partials_;
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceShuffle)
