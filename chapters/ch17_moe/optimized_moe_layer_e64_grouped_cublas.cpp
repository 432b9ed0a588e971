// Rung 2: sort by expert (CUB radix sort) + one grouped GEMM per projection.
// What changed from the expert loop: the token-expert pairs are sorted by expert once (CUB's
// radix sort on the expert ids, a prefix sum for each expert's first row), gathered once, and
// each projection is ONE library call, cublasGemmGroupedBatchedEx, over every expert's block; one
// SwiGLU over all rows; one combine kernel un-permutes and sums each token's k rows. The host
// still reads the counts back (the grouped API takes its sizes as host arrays). The pair's
// library reference.
// Pair moe_layer_e64: 8192 tokens, hidden 4096, intermediate 2816, 64 experts top-8, uniform
// routing; bf16 in and out (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeSortedGroupedCublas<aisp::ch17::LayerE64Top8>;
AISP_VARIANT(Variant)
