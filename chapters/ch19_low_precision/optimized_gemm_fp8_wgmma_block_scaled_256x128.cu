// The hand-written block-scaled FP8 GEMM on 256×128 tiles: what changed from
// gemm_fp8_wgmma_block_scaled is the tile height. Each block loads a 256-row A tile and a
// 128-row B tile per 128-k block (48 KiB for twice the FLOPs of the 128×128 rung's 32 KiB), and
// each consumer warpgroup promotes two 64-row fragments through one temporary (wgmma, wait,
// promote, twice per k block) while the other consumer's wgmma keep the tensor cores busy.
// Kernel: gemm_fp8_block_scaled_kernel.cu (main loop: mainloop_fragments).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_rows = 256}>;
AISP_VARIANT(Variant)
