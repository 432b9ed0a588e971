// FP8 grouped experts at 65536 tokens. What changed from the baseline (BF16 grouped wgmma): e4m3
// operands (wgmma.m64n256k32.e4m3), weights quantized in setup per output channel, static
// per-tensor scales for x and h (calibrated in setup), factors applied in the epilogues; see
// optimized_moe_layer_fp8.cpp. A lower-precision variant (lower_precision()).
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8Stream<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
