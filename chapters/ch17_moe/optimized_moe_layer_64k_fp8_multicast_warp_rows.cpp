// FP8 grouped experts at 65536 tokens: L2-grouped tiles, 2-block clusters with TMA multicast of the
// weights, and the row-coalesced gather. What changed from _fp8_multicast
// (optimized_moe_layer_64k_fp8_multicast.cpp): gate_up's gather as in _fp8_l2_groups_warp_rows (the
// 8 lanes of a quarter-warp copy one row's 128 bytes, so L2 serves full 32-byte sectors). Every
// idea of the 64k FP8 rungs together. A lower-precision variant (lower_precision()), same
// tolerance and bound as _fp8.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8MulticastWarpRows<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
