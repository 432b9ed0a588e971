// Rung 3 of the reduction ladder. The one idea: keep several loads in flight per thread, with a
// grid sized to the GPU that walks the buffer. What changed from optimized_reduction_vec4: 4 blocks
// of 256 threads per SM (528 on an H200) loop over the buffer grid-stride, each thread issuing 4
// float4 loads per trip before adding any (64 bytes in flight per thread, 64 KiB per SM, against
// 4 KiB per block before) into a float4 of fp32 accumulators (grid_stride_block_total in
// reduction_common.cuh). With 528 partials left instead of 2^18, a second launch of one block sums
// them, in double and in a fixed order (sum_partials_in_block): two launches instead of three.
// What it shows: enough bytes in flight to keep HBM busy; the loop is nothing but loads and adds.
// Accumulation: fp32 per thread (chains of ~500 adds per lane), fp32 shuffles within the block,
// double for the sum of the block partials, rounded once to float.
// Bytes: 2^28 · 4 = 1 GiB read; FLOPs: 2^28 adds. Ceiling: HBM bandwidth (read).
#include "reduction_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void __launch_bounds__(kReduceThreads)
    reduce_grid_stride_partials(const float4* __restrict__ in, std::size_t count4,
                                float* __restrict__ partials) {
  const float block_total = grid_stride_block_total(in, count4);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = block_total;
}

__global__ void __launch_bounds__(kReduceThreads)
    sum_block_partials(const float* __restrict__ partials, unsigned count, float* out) {
  const double sum = sum_partials_in_block<kReduceThreads>(partials, count);
  if (threadIdx.x == 0)
    *out = static_cast<float>(sum);
}

}  // namespace

struct ReduceGridStride : ReductionProblem {
  void setup(aisp::Context& ctx) override {
    ReductionProblem::setup(ctx);
    blocks_ = static_cast<unsigned>(ctx.device_properties().multiProcessorCount * kBlocksPerSm);
    partials_ = ctx.alloc("block_partials", aisp::DType::f32, blocks_, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    reduce_grid_stride_partials<<<blocks_, kReduceThreads, 0, ctx.stream()>>>(
        in4(), kCount / 4, partials_.as<float>());
    AISP_CHECK_LAUNCH();
    sum_block_partials<<<1, kReduceThreads, 0, ctx.stream()>>>(partials_.as<const float>(), blocks_,
                                                               out());
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned blocks_ = 0;
  aisp::Tensor partials_;
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceGridStride)
