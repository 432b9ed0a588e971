// `_bulk_pdl_overlap` on the layer twice as wide (the fixed cost per call weighs half as much).
#include "weight_only_variants.cuh"

using Variant =
    aisp::ch19::WeightOnlyBulk<1, true, 2, aisp::ch19::WeightOnlyBulkGrid::one_block_per_sm>;
AISP_VARIANT(Variant)
