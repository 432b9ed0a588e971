// Rung 1: WMMA — the same block tile, staged the same way as the SIMT baseline, but the
// multiply-adds run on the tensor cores. What changed: each warp holds its 64×32 piece of the
// block's 128×128 tile as eight 16×16 fp32 accumulator fragments and feeds them with
// nvcuda::wmma::mma_sync on 16×16×16 bf16 fragments (one instruction does 4096 multiply-adds that
// took 4096 FMAs), and the operands stay bf16 in shared memory (half the bytes, no widening).
// Everything else is kept: plain 16-byte loads through registers into one shared-memory stage,
// a barrier, the math, a barrier. So this rung shows what tensor cores give on their own; the
// rungs after it fix the feeding (WMMA's fragment loads are opaque: no control over the
// shared-memory layout beyond a padded pitch, no asynchronous copies).
// Tiles: A as a_tile[m][k] and B as b_tile[n][k] (both K-major, as in global memory), 32 k per
// step, rows padded from 64 to 80 bytes so the 8 rows a fragment load reads start in 8 different
// 16-byte bank groups. The accumulators go out through a per-warp 16×16 fp32 scratch tile: the
// fragment layout is opaque, so store_matrix_sync to shared memory, then 16-byte bf16 stores.
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor.
#include <mma.h>

#include <cstddef>
#include <cstdint>

#include "../common/bf16_pack.cuh"
#include "gemm_bf16_kernels.cuh"
#include "gemm_bf16_shape.hpp"

namespace aisp::ch10 {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 32;
constexpr int kWarpsM = 2, kWarpsN = 4;  // 8 warps, each a 64×32 piece of the tile
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBlockM / kWarpsM;  // 64: 4 fragments
constexpr int kWarpN = kBlockN / kWarpsN;  // 32: 2 fragments
constexpr int kFragM = kWarpM / 16, kFragN = kWarpN / 16;
constexpr int kPitch = kBlockK + 8;                         // 40 bf16 = 80 bytes per row
constexpr int kChunksPerRow = kBlockK / 8;                  // 16-byte pieces per tile row
constexpr int kLoads = kBlockM * kChunksPerRow / kThreads;  // per operand per thread: 2
static_assert(kBlockM == kBlockN, "A and B tiles are loaded alike");
static_assert(kLoads * kThreads == kBlockM * kChunksPerRow, "tiles split evenly");

__global__ void __launch_bounds__(kThreads)
    gemm_bf16_wmma(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                   __nv_bfloat16* __restrict__ c, int n, int k) {
  __shared__ __align__(128) __nv_bfloat16 a_tile[kBlockM][kPitch];
  __shared__ __align__(128) __nv_bfloat16 b_tile[kBlockN][kPitch];
  __shared__ __align__(128) float scratch[kThreads / 32][16 * 16];

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const std::size_t m0 = static_cast<std::size_t>(blockIdx.y) * kBlockM;
  const std::size_t n0 = static_cast<std::size_t>(blockIdx.x) * kBlockN;
  const std::size_t ldk = static_cast<std::size_t>(k);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragM][kFragN];
#pragma unroll
  for (int i = 0; i < kFragM; ++i)
#pragma unroll
    for (int j = 0; j < kFragN; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    uint4 va[kLoads], vb[kLoads];
#pragma unroll
    for (int p = 0; p < kLoads; ++p) {
      const int chunk = tid + p * kThreads;
      const int row = chunk / kChunksPerRow, col = 8 * (chunk % kChunksPerRow);
      va[p] = *reinterpret_cast<const uint4*>(a + (m0 + row) * ldk + k0 + col);
      vb[p] = *reinterpret_cast<const uint4*>(b + (n0 + row) * ldk + k0 + col);
    }
#pragma unroll
    for (int p = 0; p < kLoads; ++p) {
      const int chunk = tid + p * kThreads;
      const int row = chunk / kChunksPerRow, col = 8 * (chunk % kChunksPerRow);
      *reinterpret_cast<uint4*>(&a_tile[row][col]) = va[p];
      *reinterpret_cast<uint4*>(&b_tile[row][col]) = vb[p];
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[kFragM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[kFragN];
#pragma unroll
      for (int i = 0; i < kFragM; ++i)
        wmma::load_matrix_sync(fa[i], &a_tile[warp_m * kWarpM + 16 * i][kk], kPitch);
#pragma unroll
      for (int j = 0; j < kFragN; ++j)  // B as k×n column-major: element (k, n) at b_tile[n][k]
        wmma::load_matrix_sync(fb[j], &b_tile[warp_n * kWarpN + 16 * j][kk], kPitch);
#pragma unroll
      for (int i = 0; i < kFragM; ++i)
#pragma unroll
        for (int j = 0; j < kFragN; ++j)
          wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();  // the tiles are overwritten next step
  }

  // Each fragment: to the warp's scratch tile, then lane l rounds row l / 2, columns
  // 8·(l % 2)..+7 to bf16 and stores them as one 16-byte write.
  float* tile = scratch[warp];
#pragma unroll
  for (int i = 0; i < kFragM; ++i)
#pragma unroll
    for (int j = 0; j < kFragN; ++j) {
      wmma::store_matrix_sync(tile, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      const int row = lane / 2, col = 8 * (lane % 2);
      const float* src = tile + row * 16 + col;
      const uint4 packed =
          make_uint4(common::pack_bf16x2(src[0], src[1]), common::pack_bf16x2(src[2], src[3]),
                     common::pack_bf16x2(src[4], src[5]), common::pack_bf16x2(src[6], src[7]));
      const std::size_t out_row = m0 + warp_m * kWarpM + 16 * i + row;
      const std::size_t out_col = n0 + warp_n * kWarpN + 16 * j + col;
      *reinterpret_cast<uint4*>(c + out_row * static_cast<std::size_t>(n) + out_col) = packed;
      __syncwarp();  // the scratch tile is rewritten by the next fragment
    }
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_wmma(const GemmBf16Args& args, const cudaDeviceProp&) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "wmma");
  GemmBf16Launch launch;
  launch.args = args;
  launch.grid =
      dim3(static_cast<unsigned>(args.n / kBlockN), static_cast<unsigned>(args.m / kBlockM));
  launch.block = dim3(kThreads);
  return launch;
}

cudaError_t launch_gemm_bf16_wmma(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_wmma<<<launch.grid, launch.block, 0, stream>>>(
      launch.args.a, launch.args.b, launch.args.c, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
