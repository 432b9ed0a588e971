// Baseline of moe_router: the router as three kernels (top-k, softmax over the selected, histogram)
// and a memset, the ids and selected logits through memory between them (moe_router_kernels.cu).
// Pair moe_router: 65536 tokens, 64 experts, top-8, uniform routing; f32 logits in, f32 weights and
// i32 ids and counts out (moe_router_variants.hpp).
#include "moe_router_variants.hpp"

using Variant = aisp::ch17::MoeRouterSeparate<aisp::ch17::RouterE64Top8>;
AISP_VARIANT(Variant)
