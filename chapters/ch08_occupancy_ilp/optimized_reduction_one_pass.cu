// Rung 4 of the reduction ladder, the top. The one idea: one launch, the last block combining.
// What changed from optimized_reduction_grid_stride: no second launch. Every block stores its
// partial and takes a ticket from an atomic counter; the block that takes the last ticket adds the
// 528 partials (in double, in the same fixed order) and writes the sum (with the fences spelled
// out in reduction_common.cuh). Deterministic run to run; the counter resets itself, so graph
// replays and repeated runs are safe. What it saves: one kernel launch and its tail, a few µs of
// a ~250 µs run.
// Accumulation: fp32 per thread (chains of ~500 adds per lane), fp32 shuffles within the block,
// double for the final combine of the block partials, rounded once to float.
// Bytes: 2^28 · 4 = 1 GiB read; FLOPs: 2^28 adds. Ceiling: HBM bandwidth (read).
#include "reduction_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void __launch_bounds__(kReduceThreads)
    reduce_grid_stride(const float4* __restrict__ in, std::size_t count4, float* partials,
                       unsigned* blocks_done, float* out) {
  const float block_total = grid_stride_block_total(in, count4);
  combine_partials_in_last_block<kReduceThreads>(block_total, partials, blocks_done, out);
}

}  // namespace

struct ReduceOnePass : ReductionProblem {
  void setup(aisp::Context& ctx) override {
    ReductionProblem::setup(ctx);
    blocks_ = static_cast<unsigned>(ctx.device_properties().multiProcessorCount * kBlocksPerSm);
    partials_ = ctx.alloc("block_partials", aisp::DType::f32, blocks_, aisp::Role::scratch);
    blocks_done_ = ctx.alloc("blocks_done", aisp::DType::u32, 1, aisp::Role::scratch);
    // The kernel leaves the counter at zero; it must start there.
    AISP_CUDA_CHECK(cudaMemsetAsync(blocks_done_.data(), 0, sizeof(unsigned), ctx.stream()));
  }

  void run(aisp::Context& ctx) override {
    reduce_grid_stride<<<blocks_, kReduceThreads, 0, ctx.stream()>>>(
        in4(), kCount / 4, partials_.as<float>(), blocks_done_.as<unsigned>(), out());
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned blocks_ = 0;
  aisp::Tensor partials_, blocks_done_;
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceOnePass)
