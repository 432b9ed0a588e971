// `_bulk` with a ring of six 16 KiB stages per block instead of four (96 KiB per block, 192 KiB
// per SM requested at once): whether the bulk kernel is short of bytes in flight
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, aisp::ch19::WeightOnlyBulkRing::six_stages>;
AISP_VARIANT(Variant)
