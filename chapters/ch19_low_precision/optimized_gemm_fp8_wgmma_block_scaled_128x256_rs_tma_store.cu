// gemm_fp8_wgmma_block_scaled_128x256_rs with the TMA-store epilogue of
// gemm_fp8_wgmma_block_scaled_128x192_tma_store: each consumer stages its 64×256 bf16 rows in
// shared memory (32 KiB each) and one thread starts the TMA stores while the warpgroup goes on to
// the next tile. The staging buffers cost one ring slot (3 instead of 4 at 48.5 KiB per slot),
// which is the trade this variant measures. Kernel: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 256,
                                                                             .tma_store = true}>;
AISP_VARIANT(Variant)
