// The hand-written block-scaled FP8 GEMM on 128×192 tiles in two pipelined halves: what changed
// from gemm_fp8_wgmma_block_scaled_128x192 is that each consumer warpgroup multiplies its 64×192
// block of C as two 64×96 halves (wgmma m64n96k32, one 48-register temporary each, the same 192
// registers as one 96-register temporary) and promotes one half while the other is on the tensor
// cores, so three of its four promotions per two k blocks overlap its own wgmma rather than
// relying on the other consumer's. A is read from shared memory twice per k32 step (once per half).
// Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_halves).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 192,
                                                                             .split_halves = true}>;
AISP_VARIANT(Variant)
