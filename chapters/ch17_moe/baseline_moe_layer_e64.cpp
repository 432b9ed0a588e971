// Baseline: the per-token loop. For each token, its k experts' GEMVs: one launch computes
// h = silu(x·W1ᵀ)·(x·W3ᵀ) for the token's k experts, a second y = Σ_j weight_j·(h_j·W2ᵀ); 2·tokens
// launches, each streaming its experts' weights from HBM (moe_token_loop_kernels.cu). Correct and
// memory-bound at the GEMV's honest rate; no weight is shared between tokens.
// Pair moe_layer_e64: 8192 tokens, hidden 4096, intermediate 2816, 64 experts top-8, uniform
// routing; bf16 in and out (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeTokenLoop<aisp::ch17::LayerE64Top8>;
AISP_VARIANT(Variant)
