// The router as one kernel. What changed from the three kernels: a warp per token keeps its logits
// in registers, picks the top-k, takes the softmax over them and counts them in a shared-memory
// histogram (one atomic per expert per block at the end): the logits are read once, the ids and
// weights written once, nothing read back (chapters/common/moe_routing.cu).
// Pair moe_router_zipf: 65536 tokens, 64 experts, top-8, Zipf routing (s = 1)
// (moe_router_variants.hpp).
#include "moe_router_variants.hpp"

using Variant = aisp::ch17::MoeRouterFused<aisp::ch17::RouterE64Top8Zipf>;
AISP_VARIANT(Variant)
