// Baseline of moe_layer_64k: the BF16 grouped wgmma rung (own kernels, permutation and SwiGLU
// fused; see optimized_moe_layer_grouped_wgmma.cpp) at 65536 tokens, where every expert's GEMMs
// are large (16k rows each under uniform routing).
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out
// (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedWgmma<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
