// The hand-written block-scaled FP8 GEMM: e4m3 A in 1x128 blocks and B in 128x128 blocks
// (quantized in setup), wgmma m64n128k32 per 128-k block into a temporary, promoted into fp32
// accumulators with the block's two factors (DeepGEMM-style), warp-specialized and persistent.
// Measured beside cuBLASLt's FP8 modes (gemm_fp8_block_1x128_128x128 takes the same operands).
// The kernel and its full description: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{}>;
AISP_VARIANT(Variant)
