// The hand-written block-scaled FP8 GEMM on 128×192 tiles with the TMA-store epilogue and the next
// k block prefetched: what changed from gemm_fp8_wgmma_block_scaled_128x192_tma_store is the order
// of each k block's work: the wait for block kb + 1's slot and the loads of its factors happen
// before block kb's 96-FFMA promotion, so the warpgroup goes from the promotion straight to its
// next wgmma. Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_single, prefetch_next_block).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .tma_store = true, .prefetch_next_block = true}>;
AISP_VARIANT(Variant)
