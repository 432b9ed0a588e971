// The hand-written block-scaled FP8 GEMM on 256×128 tiles in 2-block clusters: what changed from
// gemm_fp8_wgmma_block_scaled_256x128 is that two blocks computing horizontally adjacent tiles
// load half of their common 256-row A tile each and multicast it to both (TMA multicast), cutting
// L2 -> SM traffic per k block from 96 to 64 KiB per pair of blocks.
// Kernel: gemm_fp8_block_scaled_kernel.cu (main loop: mainloop_fragments; producer: produce).
#include "gemm_fp8_variants.cuh"

using Variant =
    aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_rows = 256, .cluster = 2}>;
AISP_VARIANT(Variant)
