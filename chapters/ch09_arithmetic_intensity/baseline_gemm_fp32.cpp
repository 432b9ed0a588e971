// Baseline: FP32 GEMM on the SIMT units. cublasGemmEx with CUBLAS_COMPUTE_32F on the harness's
// handle (default math mode: cuBLAS may not use TF32), so every multiply-add is an FP32 FMA:
// ANCHORS.md measured 50.6 TFLOP/s for cuBLAS SGEMM at this size on the H200.
// Pair gemm_fp32: C = A·Bᵀ at M = N = K = 8192, fp32 in and out (A M×K, B N×K, C M×N
// row-major). Problem: gemm_fp32_common.hpp.
#include "gemm_fp32_common.hpp"

namespace aisp::ch09 {

struct GemmFp32Simt : Fp32GemmProblem {
  void run(aisp::Context& ctx) override { gemm(ctx, CUBLAS_COMPUTE_32F); }
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::GemmFp32Simt)
