// `_bulk_tile` at batch 4 launched with programmatic dependent launch: under graph replay the time
// per call of back-to-back calls, each call's weight copies starting where the call before has
// freed an SM, x read and y written only after that call has completed
// (weight_only_gemv_kernel.cu, launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant =
    aisp::ch19::WeightOnlyBulk<4, aisp::ch19::WeightOnlyBulkShape::whole_tile_stages, true>;
AISP_VARIANT(Variant)
