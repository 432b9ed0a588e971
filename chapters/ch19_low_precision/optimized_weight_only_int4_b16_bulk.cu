// The weight-only INT4 layer at batch 16 through the bulk kernel: persistent blocks, each an
// equal contiguous run of whole tiles streamed by the copy engine into a shared-memory ring, two
// n8 batch tiles per MMA step (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk). No PDL
// form: under its register cap the x of two batch tiles spills.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<4, 16, false>;
AISP_VARIANT(Variant)
