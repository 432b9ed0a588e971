// The hand-written block-scaled FP8 GEMM of chapter 19 (gemm_fp8_block_scaled_kernel.cu):
//   C (M×N bf16, row-major) = (A_q ∘ d_A) · (B_q ∘ d_B)ᵀ
// A_q: M×K e4m3 row-major with 1x128 dequantization factors d_A (one per row per 128 k),
// B_q: N×K e4m3 row-major with 128x128 factors d_B (one per 128 rows per 128 k), both in
// chapters/common/fp8_scale_layouts.cuh's layouts (cuBLASLt's VEC128_32F and BLK128x128_32F): the
// DeepSeek-V3 recipe (activations in 1x128 tiles, weights in 128x128 blocks).
//   prepare_gemm_fp8_block_scaled(args, device, rung)  in setup: checks the shape (whole tiles,
//       K a multiple of 256), encodes the TMA maps, sizes the persistent grid. The rung
//       (Fp8WgmmaRung) picks the tile and the cluster: 128×128 (the default), 256×128 (each
//       consumer warpgroup 128 rows in two 64-row fragments through one temporary) or 128×192
//       (wgmma m64n192k32; N a multiple of 128, the last column of tiles partial); cluster 2 pairs
//       blocks that share one operand tile through TMA multicast (B for 128-row tiles, which pair
//       vertically, A for 256-row tiles, which pair horizontally). tma_store (128×192 tiles,
//       cluster 1) stages C in shared memory and writes it with TMA stores overlapped with
//       the next tile; lean (with tma_store) runs the k loop unrolled by the ring depth with the
//       ring's addresses computed once (K/128 must be a multiple of the ring depth, 4). Only the
//       combinations listed in kBuiltRungs
//       (gemm_fp8_block_scaled_kernel.cu) are built; others are refused. The overload with
//       (cluster, tile_rows, tile_cols) is the older form.
//   launch_gemm_fp8_block_scaled(launch, stream)          in run: one launch; returns its status.
// CUDA and chapters/common only (no harness headers), so scripts/probes/fp8_probe.cu links it.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only)
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aisp::ch19 {

struct Fp8BlockScaledGemmArgs {
  const std::uint8_t* a = nullptr;  // M×K e4m3
  const std::uint8_t* b = nullptr;  // N×K e4m3
  const float* a_scales = nullptr;  // 1x128 layout: [K/128][M]
  const float* b_scales = nullptr;  // 128x128 layout: [N/128][roundup(K/128, 4)]
  __nv_bfloat16* c = nullptr;       // M×N
  int m = 0, n = 0, k = 0;
};

// Which kernel: the tile of C per block, the cluster and the epilogue.
struct Fp8WgmmaRung {
  int tile_rows = 128;     // 128 or 256
  int tile_cols = 128;     // 128 or 192
  int cluster = 1;         // 1 or 2
  bool tma_store = false;  // C through shared memory and TMA stores (128×192 tiles)
  bool lean = false;       // the main loop unrolled by the ring depth (128×192, TMA store)

  constexpr bool operator==(const Fp8WgmmaRung&) const = default;
};

struct Fp8BlockScaledGemmLaunch {
  Fp8BlockScaledGemmArgs args;
  CUtensorMap a_map{};  // A in boxes of tile_rows (256-row tiles, cluster 2: 128) rows × 128 k
  CUtensorMap b_map{};  // B in boxes of tile_cols (128-row tiles, cluster 2: half) rows × 128 k
  CUtensorMap a_scale_map{};  // d_A in boxes of tile_rows rows of one k block
  CUtensorMap c_map{};        // C in boxes of 64 × 64 (tma_store)
  Fp8WgmmaRung rung;
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
};

Fp8BlockScaledGemmLaunch prepare_gemm_fp8_block_scaled(const Fp8BlockScaledGemmArgs& args,
                                                       const cudaDeviceProp& device,
                                                       const Fp8WgmmaRung& rung);
Fp8BlockScaledGemmLaunch prepare_gemm_fp8_block_scaled(const Fp8BlockScaledGemmArgs& args,
                                                       const cudaDeviceProp& device, int cluster,
                                                       int tile_rows = 128, int tile_cols = 128);
cudaError_t launch_gemm_fp8_block_scaled(const Fp8BlockScaledGemmLaunch& launch,
                                         cudaStream_t stream);

}  // namespace aisp::ch19
