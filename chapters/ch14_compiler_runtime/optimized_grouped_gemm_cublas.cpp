// The library reference: cuBLAS's own grouped GEMM, cublasGemmGroupedBatchedEx, one call for the
// 63 non-empty experts (each a group of one problem; sizes from the host, matrix pointers in
// device arrays built in setup). A cuBLAS that answers NOT_SUPPORTED for bf16 is a skip.
// Pair grouped_gemm: 64 experts, Y_g = X_g·W_gᵀ, N = 2048, K = 7168, 32768 routed rows, bf16 in
// and out, fp32 accumulation.
#include "grouped_gemm_variants.hpp"

using Variant = aisp::ch14::GroupedGemmCublasGrouped;
AISP_VARIANT(Variant)
