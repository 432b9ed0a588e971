// The hand-written block-scaled FP8 GEMM on 128×192 tiles with a TMA-store epilogue: what changed
// from gemm_fp8_wgmma_block_scaled_128x192 is how C leaves the SM. Both consumer warpgroups finish
// a tile together, and while they store it from registers (48 bf16x2 stores per thread) no wgmma
// runs on the SM; here each writes its 64×192 bf16 rows into a swizzled staging buffer in shared
// memory (conflict-free), one thread starts three TMA stores, and the warpgroup goes on to the
// next tile's main loop while the copy engine writes C. The two 24 KiB buffers cost one ring slot
// (4 instead of 5). Kernel: gemm_fp8_block_scaled_kernel.cu (store_tile_through_shared).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 192,
                                                                             .tma_store = true}>;
AISP_VARIANT(Variant)
