// `_bulk_pdl` with one block per SM instead of two (each streaming twice the bytes), so that every
// SM keeps room for one more: under PDL the next call's blocks start at once on every SM, copy
// their first stages while this call runs on, and wait only to read x and write y. The question it
// answers: whether hiding the call's ramp this way is worth halving the consumer warps per SM
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant =
    aisp::ch19::WeightOnlyBulk<1, true, 1, aisp::ch19::WeightOnlyBulkGrid::one_block_per_sm>;
AISP_VARIANT(Variant)
