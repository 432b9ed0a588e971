// The hand-written block-scaled FP8 GEMM on 128×192 tiles with both of this session's changes:
// the two pipelined 96-column halves of gemm_fp8_wgmma_block_scaled_128x192_halves (promotion
// overlapped with the consumer's own wgmma) and the TMA-store epilogue of
// gemm_fp8_wgmma_block_scaled_128x192_tma_store (C leaves through shared memory while the next
// tile runs; 4 ring slots). Kernel: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .tma_store = true, .split_halves = true}>;
AISP_VARIANT(Variant)
