// The weight-only INT8 layer at batch 1 with the direct kernel reading each weight byte as two
// nibbles (weight_only_gemv_kernel.cu, launch_weight_only_gemv_direct, int8_nibbles): the packed
// bytes hold q + 128, each nibble becomes a bf16 with one shift and one LOP3 as INT4's do, and two
// MMAs per step (high nibbles weighted 16) replace the 5-instruction conversion of each pair
// through fp32: ~112 instead of ~160 dequantizing instructions per lane and 2 KiB group, counted
// from the source (measured on the H200, run 20261124-064730-2774: 34.5 us against 37.0 with the
// fp32 conversion in the same kernel).
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDirect<8, 1, aisp::ch19::WeightOnlyDirectShape::int8_nibbles>;
AISP_VARIANT(Variant)
