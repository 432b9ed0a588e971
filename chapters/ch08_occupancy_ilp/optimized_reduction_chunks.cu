// Beside the top rung: the same block sum and last-block combine as optimized_reduction_one_pass,
// but no grid-stride loop. The one idea: where the loads in flight are, not how many. Each block
// sums one contiguous 64 KiB chunk (256 threads × 16 float4, all 16 loads issued before the first
// add) and 16384 blocks cover the buffer once, so the hardware block scheduler hands out the
// chunks in order as blocks finish. Chapter 7 found a float4 copy in this one-pass form at the
// cudaMemcpy rate while the grid-stride form stayed ~6% under it (its blocks drift apart and
// spread their accesses over more DRAM rows); this variant checks whether a read-only stream
// shows the same. Cost of the shape: 16384 partials for the last block to add (64 KiB from L2,
// ~1 µs).
// Accumulation: fp32 per thread (16 float4, chains of 15 adds per lane), fp32 shuffles within the
// block, double for the final combine, rounded once to float.
// Bytes: 2^28 · 4 = 1 GiB read; FLOPs: 2^28 adds. Ceiling: HBM bandwidth (read).
#include "reduction_common.cuh"

namespace aisp::ch08 {
namespace {

constexpr int kVecsPerThread = 16;
constexpr std::size_t kVecsPerBlock = std::size_t{kReduceThreads} * kVecsPerThread;
static_assert((ReductionProblem::kCount / 4) % kVecsPerBlock == 0, "whole chunks only");

__global__ void __launch_bounds__(kReduceThreads)
    reduce_one_pass_chunks(const float4* __restrict__ in, float* partials, unsigned* blocks_done,
                           float* out) {
  const float4* chunk = in + blockIdx.x * kVecsPerBlock + threadIdx.x;
  float4 v[kVecsPerThread];
#pragma unroll
  for (int u = 0; u < kVecsPerThread; ++u)
    v[u] = chunk[u * kReduceThreads];  // coalesced: consecutive threads, consecutive float4
  float4 acc = v[0];
#pragma unroll
  for (int u = 1; u < kVecsPerThread; ++u)
    add_to(acc, v[u]);
  const float block_total = block_sum<float, kReduceThreads>((acc.x + acc.y) + (acc.z + acc.w));
  combine_partials_in_last_block<kReduceThreads>(block_total, partials, blocks_done, out);
}

constexpr unsigned kChunks = static_cast<unsigned>(ReductionProblem::kCount / 4 / kVecsPerBlock);

}  // namespace

struct ReduceOnePassChunks : ReductionProblem {
  void setup(aisp::Context& ctx) override {
    ReductionProblem::setup(ctx);
    partials_ = ctx.alloc("block_partials", aisp::DType::f32, kChunks, aisp::Role::scratch);
    blocks_done_ = ctx.alloc("blocks_done", aisp::DType::u32, 1, aisp::Role::scratch);
    // The kernel leaves the counter at zero; it must start there.
    AISP_CUDA_CHECK(cudaMemsetAsync(blocks_done_.data(), 0, sizeof(unsigned), ctx.stream()));
  }

  void run(aisp::Context& ctx) override {
    reduce_one_pass_chunks<<<kChunks, kReduceThreads, 0, ctx.stream()>>>(
        in4(), partials_.as<float>(), blocks_done_.as<unsigned>(), out());
    AISP_CHECK_LAUNCH();
  }

 private:
  aisp::Tensor partials_, blocks_done_;
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceOnePassChunks)
