// The weight-only INT4 layer at batch 1, the ring kernel of `_fused` spread evenly over the SMs:
// one row set (two warps) per block instead of two, 896 blocks at 6.8 per SM instead of 448 at
// 3.4 of 4 slots, the INT4 bias removed by MMAs of a constant -136 A fragment (as in the direct
// kernel) instead of the x sums each block would otherwise compute again
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_fused_balanced).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyFusedBalanced<4, 1>;
AISP_VARIANT(Variant)
