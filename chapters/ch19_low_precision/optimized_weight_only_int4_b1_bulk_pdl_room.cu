// `_bulk_pdl` with blocks small enough that a third fits on every SM (3 stages instead of 4,
// <= 72 registers, <= 75 KiB of shared memory) while still 2 per SM are launched: under PDL the
// next call's first blocks start on every SM at once, copying their weights while this call
// finishes, without halving the consumer warps as one block per SM did
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant =
    aisp::ch19::WeightOnlyBulk<1, true, 1, aisp::ch19::WeightOnlyBulkFootprint::room_for_next_call>;
AISP_VARIANT(Variant)
