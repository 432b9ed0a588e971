// The hand-written block-scaled FP8 GEMM on 128×192 tiles in 2-block clusters: what changed from
// gemm_fp8_wgmma_block_scaled_128x192 is that two blocks computing vertically adjacent tiles load
// half of their common 192-row B tile each and multicast it to both (TMA multicast): B is this
// tile's larger operand (24 KiB per k block against A's 16), so L2 -> SM traffic per k block drops
// from 80 to 56 KiB per pair of blocks. Kernel: gemm_fp8_block_scaled_kernel.cu (producer:
// produce).
#include "gemm_fp8_variants.cuh"

using Variant =
    aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 192, .cluster = 2}>;
AISP_VARIANT(Variant)
