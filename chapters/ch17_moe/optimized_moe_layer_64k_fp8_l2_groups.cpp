// FP8 grouped experts at 65536 tokens, tiles walked in L2-sized groups. What changed from _fp8
// (optimized_moe_layer_64k_fp8.cpp): only the order in which the persistent blocks take an
// expert's tiles. _fp8 goes down all of an expert's 128 row blocks before the next column tile:
// at 16384 rows per expert the ~132 blocks in flight each read their own rows of A (64 MB of x in
// e4m3 per expert for gate_up, 180 MB of h for down: more than the 60 MB L2), so A is fetched from
// HBM again for every column tile (~44 GB for gate_up, ~23 GB for down per call, by arithmetic).
// Here the order is the same within groups of 16 row blocks (2048 rows, 8 MB of A for gate_up):
// a group's A stays in L2 while its column tiles go by, and the blocks in flight share ~8 column
// tiles of weights. At 8192 tokens an expert has 16 row blocks, so both orders are the same there.
// A lower-precision variant (lower_precision()), same tolerance and bound as _fp8.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8L2Groups<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
