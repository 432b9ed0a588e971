// Baseline of the gemm_fp8 pair: the GEMM in BF16 through cuBLASLt (the algorithm its heuristic
// ranks first for the TN layout, fp32 accumulation), no quantization. Every FP8 variant of the
// pair is measured against it for time and against the float64 reference for error.
// Pair gemm_fp8: C = A·Bᵀ at M = N = K = 8192, bf16 inputs and output (gemm_fp8_problem.cuh).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmBf16Cublaslt;
AISP_VARIANT(Variant)
