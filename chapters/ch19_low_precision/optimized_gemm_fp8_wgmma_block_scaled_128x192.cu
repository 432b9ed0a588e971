// The hand-written block-scaled FP8 GEMM on 128×192 tiles: what changed from
// gemm_fp8_wgmma_block_scaled is the wgmma's width: each consumer warpgroup issues m64n192k32
// (96 tensor-core cycles per instruction, against m64n128k32's 64) on its 64 rows, promoting
// through one 96-register temporary, the tile's two B scale blocks chosen per column group.
// Kernel: gemm_fp8_block_scaled_kernel.cu (main loop: mainloop_single).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 192}>;
AISP_VARIANT(Variant)
