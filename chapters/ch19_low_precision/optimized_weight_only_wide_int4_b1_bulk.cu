// `weight_only_int4_b1_bulk` on the twice-as-wide layer (N 57344): each persistent block streams
// twice the tiles (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, false, 2>;
AISP_VARIANT(Variant)
