// `wide_int4_b1_bulk_pdl` with the kernel's lean form (weight_only_gemv_kernel.cu,
// weight_only_gemv_bulk_lean). Visit 2's A/B.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, true, 2, true>;
AISP_VARIANT(Variant)
