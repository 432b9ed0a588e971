// The weight-only INT4 layer at batch 4, fused like `_fused`, read by the direct kernel: each
// warp loads a chunk of its row set's packed weights straight into registers (8 groups of 128 k
// at INT4 batch <= 8; weight_only_gemv_kernel.cu, launch_weight_only_gemv_direct) instead of
// through a shared-memory ring, and one block is one short-lived row set, so the SMs share the
// work as they free up. Against `_fused` it tests fewer instructions per weight byte.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDirect<4, 4, aisp::ch19::WeightOnlyDirectShape::one_tile>;
AISP_VARIANT(Variant)
