// Baseline: every thread loads, then everyone computes, one tile at a time. For each of its tiles
// the block's 1024 threads copy the 72 KiB stage (70 row segments × 66 float4) with plain 16-byte
// loads — each thread issues all of its 4–5 loads before storing any to shared memory, so the
// whole stage is in flight at once — wait at a barrier, compute the tile's 64 × 256 outputs from
// shared memory, and wait again before the next tile overwrites the stage. Loads pass through
// registers and cost every thread address arithmetic and two instructions per 16 bytes; and while
// the block loads its FMA units idle, while it computes nothing is in flight. One 1024-thread
// block per SM (the persistent grid; more than 32 registers per thread would allow no second
// block) leaves nothing else to fill those gaps: each tile costs load latency + transfer + compute.
// Bytes: 2.15 GB (padded input read once, output written once); FLOPs: 98 per output, 26.3 G.
// Ceiling: HBM bandwidth and FP32 SIMT, nearly equal here (0.50 and 0.52 ms).
#include "tma_bulk_copy_common.cuh"

namespace aisp::ch07 {
namespace {

using namespace filter2d;

__global__ void __launch_bounds__(kThreads, 1)
    filter2d_staged_sync(const float* __restrict__ in, float* __restrict__ out) {
  extern __shared__ float4 stage4[];  // one stage: kStageRows × kSegmentChunks float4
  const int tid = static_cast<int>(threadIdx.x);

  for (int tile = static_cast<int>(blockIdx.x); tile < kTiles;
       tile += static_cast<int>(gridDim.x)) {
    float4 v[kChunksPerThread];
#pragma unroll
    for (int u = 0; u < kChunksPerThread; ++u) {
      const int c = tid + u * kThreads;
      if (c < kStageChunks)
        v[u] = reinterpret_cast<const float4*>(
            segment_source(in, tile, c / kSegmentChunks))[c % kSegmentChunks];
    }
#pragma unroll
    for (int u = 0; u < kChunksPerThread; ++u) {
      const int c = tid + u * kThreads;
      if (c < kStageChunks)
        stage4[c] = v[u];  // segment c / 66, float4 c % 66: the same place a bulk copy puts it
    }
    __syncthreads();  // the stage is complete

    filter_tile(reinterpret_cast<const float*>(stage4), tile, out);
    __syncthreads();  // everyone is done reading the stage before it is refilled
  }
}

}  // namespace

struct Filter2dStagedSync : TmaBulkCopyProblem {
  void setup(aisp::Context& ctx) override {
    TmaBulkCopyProblem::setup(ctx);
    AISP_CUDA_CHECK(cudaFuncSetAttribute(filter2d_staged_sync,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kStageBytes)));
  }

  void run(aisp::Context& ctx) override {
    filter2d_staged_sync<<<grid(), kThreads, kStageBytes, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::Filter2dStagedSync)
