// Baseline of the weight_only_wide_int4_b1 pair: the weight_only_int4_b1 layer twice as wide
// (N 57344, K 4096: 117 MB of INT4 weights), dequantized to bf16 (470 MB) and multiplied by
// cuBLAS. A signature pair: the same kernels on twice the bytes, so that the time per call of
// the two widths gives a kernel's fixed cost per call (the intercept) and its streaming rate (the
// slope). Problem and variants: weight_only_variants.cuh.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDequantGemm<4, 1, 2>;
AISP_VARIANT(Variant)
