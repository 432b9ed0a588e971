// The hand-written block-scaled FP8 GEMM in 2-block clusters: what changed from
// gemm_fp8_wgmma_block_scaled is that two blocks computing vertically adjacent tiles load half of
// their common B tile each and multicast it to both (TMA multicast), cutting L2 -> SM traffic per
// k block from 64 to 48 KiB per pair of blocks. Kernel: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.cluster = 2}>;
AISP_VARIANT(Variant)
