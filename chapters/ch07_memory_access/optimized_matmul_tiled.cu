// Optimized (step 1): shared-memory tiling. What changed vs the naive baseline: the block walks k
// in steps of 32; at each step its 1024 threads copy a 32×32 tile of A and a 32×32 tile of B into
// shared memory (one coalesced load each per thread), wait at a barrier, and take the 32 products
// of the step from shared memory. Why it is faster: each element loaded from global memory now
// serves 32 threads instead of one, so global (L1/L2) load instructions drop 32-fold; the inner
// loop reads As[y][k] (the same word for the whole warp: a broadcast) and Bs[k][x] (32 consecutive
// words: 32 banks), both conflict-free.
// What is still slow: every FMA still needs two shared-memory loads, and shared memory delivers
// one 32-wide load per clock per SM against four 32-wide FMAs: the loop is bound by shared-memory
// bandwidth at a fraction of the FMA peak. optimized_matmul_tiled_regblock fixes that by reusing
// each loaded value from registers.
// Bytes: 3 · 4096² · 4 = 192 MiB at the least; FLOPs 2 · 4096³ = 137 G. Ceiling: FP32 SIMT.
#include "matmul_tiled_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kTile = 32;  // tile side and threads per block side

__global__ void __launch_bounds__(kTile* kTile)
    matmul_smem_tiled(const float* __restrict__ a, const float* __restrict__ b,
                      float* __restrict__ c, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int x = static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(threadIdx.y);
  const int col = static_cast<int>(blockIdx.x) * kTile + x;
  const int row = static_cast<int>(blockIdx.y) * kTile + y;
  const float* a_row = a + static_cast<std::size_t>(row) * k;
  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    a_tile[y][x] = a_row[k0 + x];                                  // row of A: coalesced
    b_tile[y][x] = b[static_cast<std::size_t>(k0 + y) * n + col];  // row of B: coalesced
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk)
      acc = fmaf(a_tile[y][kk], b_tile[kk][x], acc);  // same k order as the naive loop
    __syncthreads();                                  // the tile is overwritten next step
  }
  c[static_cast<std::size_t>(row) * n + col] = acc;
}

}  // namespace

struct MatmulSmemTiled : MatmulTiledProblem {
  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, m() / kTile);
    const dim3 block(kTile, kTile);
    matmul_smem_tiled<<<grid, block, 0, ctx.stream()>>>(a(), b(), c(), n(), k());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::MatmulSmemTiled)
