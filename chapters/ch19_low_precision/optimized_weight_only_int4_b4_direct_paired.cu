// The weight-only INT4 layer at batch 4 with the direct kernel in its two_tiles shape: two 16-row
// tiles per warp, which share the warp's x loads and the MMAs that remove the nibbles' bias
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_direct): against `_direct`, fewer
// instructions per weight for half as many blocks.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDirect<4, 4, aisp::ch19::WeightOnlyDirectShape::two_tiles>;
AISP_VARIANT(Variant)
