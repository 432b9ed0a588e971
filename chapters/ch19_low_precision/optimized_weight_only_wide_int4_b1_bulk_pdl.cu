// `weight_only_int4_b1_bulk_pdl` on the twice-as-wide layer (N 57344): back-to-back calls with
// programmatic dependent launch (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, true, 2>;
AISP_VARIANT(Variant)
