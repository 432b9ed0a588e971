// The hand-written block-scaled FP8 GEMM on 192×128 tiles with three consumer warpgroups and the
// lean main loop: gemm_fp8_wgmma_block_scaled_192x128_3wg with the k-block overhead cut as in
// gemm_fp8_wgmma_block_scaled_128x192_lean. With three consumers, two other groups (2 × 256
// tensor-core cycles) are available to hide one consumer's promotion and overhead, against one
// group of 384 cycles with two consumers. Kernel: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_rows = 192, .tma_store = true, .consumers = 3, .lean = true}>;
AISP_VARIANT(Variant)
