// Rung 4: FP8 grouped experts.
// What changed from the BF16 grouped kernels: the same kernels with e4m3 operands
// (wgmma.m64n256k32.e4m3, twice BF16's tensor rate): weights quantized once in setup with one
// scale per output channel, x cast to e4m3 with a static per-tensor scale (one elementwise
// kernel), h written in e4m3 by the first GEMM's epilogue with a static scale (both calibrated in
// setup on another batch), all factors applied in the epilogues. A lower-precision variant: it
// declares its format and error bound (lower_precision()).
// Pair moe_layer: 8192 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform routing;
// bf16 in and out (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8Stream<aisp::ch17::LayerE8Top2>;
AISP_VARIANT(Variant)
