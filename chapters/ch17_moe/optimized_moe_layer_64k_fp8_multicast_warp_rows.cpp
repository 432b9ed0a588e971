// FP8 grouped experts at 65536 tokens, fed with less memory traffic. What changed from _fp8
// (optimized_moe_layer_64k_fp8.cpp), all in how the grouped kernels feed the tensor cores
// (MoeTileSchedule::l2_groups_multicast, moe_grouped_gemm_kernel.cuh):
//   - 2-block clusters take the two row blocks of a 256-row tile; each block loads half of every
//     weight slot with one TMA multicast into both, so weights leave L2 once per cluster;
//   - an expert's tiles go in groups of 16 row blocks (2048 rows), so a group's A stays in L2
//     while its column tiles go by (_fp8 re-reads an expert's whole A for every column tile);
//   - gate_up's gather: the 8 lanes of a quarter-warp copy one row's 128 bytes (whole 32-byte
//     sectors) instead of each thread one row, tokens from a shared-memory table per tile.
// Measured on an NVIDIA H200 (README, "moe_layer_64k"): gate_up's DRAM reads 36.5 -> 6.8 GB and its
// kernel 29.2 -> 26.8 ms under Nsight Compute, but the layer 43.8 ms against _fp8's 44.6 in the
// same run, inside the noise: the memory traffic was not what limits gate_up.
// A lower-precision variant (lower_precision()), same tolerance and bound as _fp8.
// Pair moe_layer_64k: 65536 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform
// routing (the size of the FP8 target, >= 1000 TFLOP/s); bf16 in and out.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedFp8MulticastWarpRows<aisp::ch17::LayerE8Top2Tokens64k>;
AISP_VARIANT(Variant)
