// Baseline of the weight_only_int4_b1 pair: a decode step (batch 1) through an INT4 weight-only
// quantized layer (N 28672, K 4096, bf16 scale per 128 k) the unfused way: a kernel dequantizes
// W to bf16 in memory (reading the INT4 bytes, writing 235 MB), then cuBLAS multiplies
// (cublasGemmEx, bf16, fp32 accumulation) reading the 235 MB again. The library reference of the
// pair. Problem and variants: weight_only_variants.cuh.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyDequantGemm<4, 1>;
AISP_VARIANT(Variant)
