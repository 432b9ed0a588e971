// The weight-only INT4 layer at batch 4, fused like `_fused` but with the bytes in flight held
// in registers instead of a cp.async ring: each warp loads a chunk of 4 groups of two 16-row tiles
// (8 KiB) at once and multiplies it group by group, the two tiles sharing the warp's x loads and
// the MMAs that remove the nibbles' bias; one block is one short-lived row set, handed out as SMs
// free up (weight_only_gemv_kernel.cu, launch_weight_only_gemv_direct, two_tiles).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDirect<4, 4, aisp::ch19::WeightOnlyDirectShape::two_tiles>;
AISP_VARIANT(Variant)
