// Baseline of moe_router_zipf: the router as three kernels (top-k, softmax over the selected,
// histogram) and a memset, the ids and selected logits through memory between them
// (moe_router_kernels.cu). Pair moe_router_zipf: 65536 tokens, 64 experts, top-8, Zipf routing (s =
// 1); f32 logits in, f32 weights and i32 ids and counts out (moe_router_variants.hpp).
#include "moe_router_variants.hpp"

using Variant = aisp::ch17::MoeRouterSeparate<aisp::ch17::RouterE64Top8Zipf>;
AISP_VARIANT(Variant)
