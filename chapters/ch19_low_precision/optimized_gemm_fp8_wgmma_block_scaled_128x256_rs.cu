// The hand-written block-scaled FP8 GEMM on 128×256 tiles with A from registers: what changed from
// gemm_fp8_wgmma_block_scaled_128x192 is the bytes that shared memory moves per output. Each
// consumer warpgroup owns 64 rows × 256 columns (128 fp32 accumulators), loads its A fragment of a
// k block once with ldmatrix and computes the two 128-column halves with wgmma m64n128k32 in the
// register-A form through one 64-register temporary, promoting each half with its own B scale
// block. Per k block: 48 KiB written by TMA + 2·(8 + 32) KiB read by the consumers for 128·256
// outputs (3.9 B per output, 4.2 B at 128×192). C is stored from registers. N must be a multiple
// of 256. Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_register_a).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 256}>;
AISP_VARIANT(Variant)
