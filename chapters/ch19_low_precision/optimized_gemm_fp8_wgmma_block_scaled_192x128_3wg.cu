// The hand-written block-scaled FP8 GEMM on 192×128 tiles with three consumer warpgroups (and the
// TMA-store epilogue): what changed from gemm_fp8_wgmma_block_scaled_128x192_tma_store is how many
// consumers share the tensor cores. The tile's area is the same (24,576 outputs, 768 tensor-core
// cycles per 128-k block), but it is split into three 64×128 shares instead of two 64×192 ones:
// while one consumer promotes (64 FFMA per thread instead of 96), the other two have wgmma queued,
// so a promotion no longer needs the other consumer to be exactly half a period out of step to be
// hidden. Each consumer holds 64 accumulators and one 64-register temporary (setmaxnreg 160; the
// producer drops to 24). 8192 = 42·192 + 128: the last row of tiles is partial (its loads past M
// arrive as zeros, its stores are skipped). Kernel: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_rows = 192, .tma_store = true, .consumers = 3}>;
AISP_VARIANT(Variant)
