// FP8 grouped experts at 65536 tokens: L2-grouped tiles and a row-coalesced gather. What changed
// from _fp8_l2_groups (optimized_moe_layer_64k_fp8_l2_groups.cpp): only which producer thread
// copies which 16 bytes of gate_up's gathered A. There, thread p copies row p, so each warp
// instruction asks L2 for 16 bytes of 32 different rows: 32 sector requests, each 32-byte sector
// half used (Nsight Compute on the H200, prof0 of the lead, _fp8's gate_up: L2 throughput 84% at
// 41% SM throughput, against 83% and 88% for down, whose A comes by TMA). Here the 8 lanes of a
// quarter-warp copy one row's 128 bytes: one instruction reads 4 whole rows, 16 full sectors.
// The down projection is unchanged. A lower-precision variant (lower_precision()), same tolerance
// and bound as _fp8.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8L2GroupsWarpRows<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
