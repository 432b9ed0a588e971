// FP8 grouped experts at 65536 tokens, gate_up fed by TMA. What changed from
// _fp8_multicast_warp_rows (same clusters, weight multicast and L2-grouped tile order;
// MoeTileSchedule::sorted_a_multicast): x's FP8 cast also dispatches it, writing each token's e4m3
// row into its k expert-sorted positions (launch_quantize_scatter_e4m3: 0.54 GB read, 0.54 GB
// written instead of the cast's 0.27 GB, ~0.07 ms more at the copy ceiling), so gate_up's A is a
// plain matrix in expert order, loaded by one TMA box per k-step as down's is, instead of
// gathered row by row with cp.async by 128 producer threads. Why: under Nsight Compute on the
// H200 gate_up ran its k-steps at 46% of the tensor rate with DRAM at 6% and L2 at 34%, while
// down, fed by TMA from the same kind of ring, ran at 88% (README, "moe_layer_64k").
// Measured on an NVIDIA H200 (README): 34.4 and 33.8 ms, 1032-1050 TFLOP/s (runs
// 20261124-085819-240b, -094810-2bff) against 43.9 ms for _fp8_multicast_warp_rows in the first;
// gate_up 48.2 M -> 32.6 M cycles, its tensor pipe 46% -> 68% (Nsight Compute).
// A lower-precision variant (lower_precision()): the same e4m3 values as _fp8, the same tolerance.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8SortedTma<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
