// The bulk kernel with whole-tile stages at batch 4: one block of 16 consumer warps per SM, each
// stage one whole 16-row tile (32 KiB), so every warp multiplies the same two 128-k groups of
// each tile and keeps their x and bias terms in registers for the whole call: no x loads through
// L1 per stage (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk, whole_tile_stages).
#include "weight_only_variants.cuh"

using Variant =
    aisp::ch19::WeightOnlyBulk<4, aisp::ch19::WeightOnlyBulkShape::whole_tile_stages, false>;
AISP_VARIANT(Variant)
