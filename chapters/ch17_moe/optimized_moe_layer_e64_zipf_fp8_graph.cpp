// Rung 5: the whole layer in a CUDA graph.
// What changed from the FP8 rung: the layer's launches (router, sort, offsets, inverse
// permutation, x cast, two grouped GEMMs, combine) are captured once in setup and replayed as one
// graph launch per call. Possible only because no rung-3+ step waits for the host; the gain is the
// launch gaps between dependent kernels.
// Pair moe_layer_e64_zipf: 8192 tokens, hidden 4096, intermediate 2816, 64 experts top-8, Zipf
// routing (s = 1: the hottest expert gets 89% of the tokens); bf16 in and out
// (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8Graph<aisp::ch17::LayerE64Top8Zipf>;
AISP_VARIANT(Variant)
