// The hand-written block-scaled FP8 GEMM on 128×192 tiles with the TMA-store epilogue, in 2-block
// clusters: what changed from gemm_fp8_wgmma_block_scaled_128x192_tma_store is that two blocks
// computing vertically adjacent tiles load half of their common 192-row B tile each and multicast
// it to both (L2 -> SM traffic per k block 56 instead of 80 KiB per pair of blocks).
// Kernel: gemm_fp8_block_scaled_kernel.cu (producer: produce).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .cluster = 2, .tma_store = true}>;
AISP_VARIANT(Variant)
