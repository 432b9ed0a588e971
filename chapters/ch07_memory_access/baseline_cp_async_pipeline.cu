// Baseline: stage, then compute, one tile at a time. For each of its tiles the block loads the
// 64 KiB stage with plain 16-byte loads (each thread issues all of its 4–5 loads before storing
// any to shared memory, so a whole stage is in flight at once), waits at a barrier, computes the
// tile's 16384 outputs from shared memory, and waits again before the next tile overwrites the
// stage. While the block loads, its FMA units idle; while it computes, nothing is in flight for
// the next tile. Nothing else on the SM fills those gaps: one 1024-thread block per SM is all
// the persistent grid provides (and with more than 32 registers per thread, all an SM could hold).
// So each tile costs load latency + load transfer + compute, where the two floors are about equal.
// Bytes: 2 GiB (1 GiB read + 1 GiB written; halos add 0.3%); FLOPs: 98 per element, 26.3 G.
// Ceiling: HBM bandwidth and FP32 SIMT, nearly equal here (0.50 and 0.52 ms).
#include "cp_async_pipeline_common.cuh"

namespace aisp::ch07 {
namespace {

using namespace filter1d;

__global__ void __launch_bounds__(kThreads, 1)
    filter1d_staged_sync(const float* __restrict__ in, float* __restrict__ out) {
  extern __shared__ float4 stage4[];  // one stage: kStageChunks float4
  const auto* in4 = reinterpret_cast<const float4*>(in);
  const int tid = static_cast<int>(threadIdx.x);

  for (int tile = static_cast<int>(blockIdx.x); tile < kTiles;
       tile += static_cast<int>(gridDim.x)) {
    float4 v[kChunksPerThread];
#pragma unroll
    for (int u = 0; u < kChunksPerThread; ++u) {
      const int c = tid + u * kThreads;
      v[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (c < kStageChunks) {
        const long long first = chunk_source(tile, c);
        if (chunk_inside(first))
          v[u] = in4[first / 4];
      }
    }
#pragma unroll
    for (int u = 0; u < kChunksPerThread; ++u) {
      const int c = tid + u * kThreads;
      if (c < kStageChunks)
        stage4[c] = v[u];
    }
    __syncthreads();  // the stage is complete

    filter_tile(reinterpret_cast<const float*>(stage4), tile, out);
    __syncthreads();  // everyone is done reading the stage before it is refilled
  }
}

}  // namespace

struct Filter1dStagedSync : CpAsyncPipelineProblem {
  void setup(aisp::Context& ctx) override {
    CpAsyncPipelineProblem::setup(ctx);
    AISP_CUDA_CHECK(cudaFuncSetAttribute(filter1d_staged_sync,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kStageBytes)));
  }

  void run(aisp::Context& ctx) override {
    filter1d_staged_sync<<<grid(), kThreads, kStageBytes, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::Filter1dStagedSync)
