// Baseline: GEMM, then bias, then GELU, one launch each, as an eager framework runs
// `gelu(x @ W.T + b)`: cuBLASLt (no epilogue) writes A·Bᵀ in bf16, a bias kernel reads it and
// writes it back with the bias added, a GELU kernel reads it and writes C. The GEMM's result
// crosses HBM four times more than it has to (940 MB at this shape).
// Pair gemm_bias_gelu: C = GELU_tanh(A·Bᵀ + bias) at M = 8192, N = 14336, K = 4096, bf16 in and
// out, fp32 accumulation (A M×K, B N×K, C M×N row-major; bias per column). Problem:
// gemm_bias_gelu_problem.hpp; kernels: gemm_bias_gelu_elementwise.cu.
#include "gemm_bias_gelu_variants.hpp"

using Variant = aisp::ch10::GemmBiasGeluUnfused;
AISP_VARIANT(Variant)
