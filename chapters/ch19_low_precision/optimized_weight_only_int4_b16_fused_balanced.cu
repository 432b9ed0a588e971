// The weight-only INT4 layer at batch 16, the ring kernel of `_fused` spread evenly over the SMs:
// one row set (two warps) per block instead of two, 896 blocks at 6.8 per SM instead of 448 at
// 3.4 of 4 slots, and the A fragments kept at 128 + u with the bias removed by MMAs of a constant
// -136 A fragment (16 per group and warp) instead of 32 bf16x2 subtractions per tile and group
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_fused_balanced).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyFusedBalanced<4, 16>;
AISP_VARIANT(Variant)
