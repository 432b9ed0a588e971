// `_bulk` with the copy engine's L2 cache hint left out: the weights' lines are not tagged
// evict-first. The A/B of that hint for the bulk kernel (the ring kernel measured it worth ~7%,
// README), and the bulk kernel's form should the hinted copy ever fault (the README's nvcc
// cache-hint trap was seen with cp.async, not yet with cp.async.bulk).
#include "weight_only_variants.cuh"

using Variant =
    aisp::ch19::WeightOnlyBulk<1, aisp::ch19::WeightOnlyBulkRing::four_stages, 1, false, false>;
AISP_VARIANT(Variant)
