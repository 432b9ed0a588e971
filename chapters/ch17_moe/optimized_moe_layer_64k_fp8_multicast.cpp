// FP8 grouped experts at 65536 tokens on 2-block clusters with TMA multicast. What changed from
// _fp8_l2_groups (optimized_moe_layer_64k_fp8_l2_groups.cpp): the two blocks of a cluster take the
// two row blocks of one 256-row tile and share its weights. Each loads half of every B slot (128 of
// the 256 weight rows) with one TMA multicast that lands in both blocks' shared memory, so the
// weights leave L2 once per cluster: per block and k-step 16 KiB of A + 16 KiB of B from L2
// instead of 16 + 32 KiB, at the FP8 rate ~5.6 instead of ~8.4 TB/s of L2-to-SM traffic across
// the GPU (arithmetic). A slot is refilled only when both blocks' consumers released it.
// A lower-precision variant (lower_precision()), same tolerance and bound as _fp8.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8Multicast<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
