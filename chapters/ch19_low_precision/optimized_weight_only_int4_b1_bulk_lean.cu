// `_bulk` with the kernel's lean form (weight_only_gemv_kernel.cu, weight_only_gemv_bulk_lean):
// the same algorithm with fewer instructions per stage (mask immediates, the bias as the MMA
// chain's start, running shared-memory addresses, predicated slot stores). Visit 2's A/B.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, false, 1, true>;
AISP_VARIANT(Variant)
