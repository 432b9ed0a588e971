// The weight-only INT4 layer at batch 1, fused, with the copy engine streaming the weights:
// one persistent block per slot (2 per SM) owns an equal run of whole 16-row tiles, which the
// packed layout makes one contiguous run of bytes; a single thread copies it into a ring of
// shared-memory stages (cp.async.bulk on mbarriers), so the whole ring is in flight from the
// block's start and every SM streams the same bytes (weight_only_gemv_kernel.cu,
// launch_weight_only_gemv_bulk).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyBulk<1, false>;
AISP_VARIANT(Variant)
