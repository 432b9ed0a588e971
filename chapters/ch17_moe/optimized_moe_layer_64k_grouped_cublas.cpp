// The library reference at 65536 tokens: sort by expert (CUB) + cublasGemmGroupedBatchedEx per
// projection (optimized_moe_layer_grouped_cublas.cpp), BF16. Beside the baseline's own grouped
// kernels it says how far those are from the library on the same work.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeSortedGroupedCublas<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
