// The weight-only INT4 layer at batch 1 with the direct kernel in its shallow shape: half
// the groups per warp's chunk and more warps per SM (weight_only_gemv_kernel.cu,
// launch_weight_only_gemv_direct): against `_direct`, whether the bytes in flight are better
// spread over more warps.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDirect<4, 1, aisp::ch19::WeightOnlyDirectShape::shallow>;
AISP_VARIANT(Variant)
