// The control of the hand-written FP8 rungs: gemm_fp8_wgmma_block_scaled_128x192's kernel (same
// 128×192 tile, ring, producer, tile order and epilogue) on operands quantized per tensor, so the
// four wgmma m64n192k32 of every k block accumulate straight into the accumulators: no temporary,
// no wait per k block, no promotion FFMA. Its time against the block-scaled rung's is what the
// promotion costs; against cuBLASLt per-tensor (the same recipe), what the rest of the kernel
// leaves on the table. Not a block-scaled GEMM: the tensor cores' reduced-precision accumulation
// spans all of K here. Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_unpromoted).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .scaling = aisp::ch19::Fp8WgmmaScaling::per_tensor_control}>;
AISP_VARIANT(Variant)
