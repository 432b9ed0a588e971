// Baseline: FP32 GEMM, then ReLU. cuBLAS (cublasGemmEx, CUBLAS_COMPUTE_32F on the harness's
// handle: FP32 FMAs on the SIMT units, no TF32) writes A·Bᵀ into C; a ReLU kernel reads C and
// writes it back clamped: C crosses HBM twice more than the answer needs (128 MiB).
// Pair gemm_relu: C = relu(A·Bᵀ) at M = N = K = 4096, fp32 in and out (A M×K, B N×K, C M×N
// row-major). Problem: gemm_relu_common.hpp; kernel: gemm_relu_kernels.cu.
#include <cublas_v2.h>

#include "gemm_relu_common.hpp"
#include "gemm_relu_kernels.cuh"

namespace aisp::ch09 {

struct GemmReluFp32 : GemmReluProblem {
  void run(aisp::Context& ctx) override {
    // Row-major C = A·Bᵀ is column-major Cᵀ = op(B)·Aᵀ (B transposed, ld K; Aᵀ as stored, ld K).
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(cublasGemmEx(ctx.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, kN, kM, kK, &alpha, b(),
                                   CUDA_R_32F, kK, a(), CUDA_R_32F, kK, &beta, c(), CUDA_R_32F, kN,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    AISP_CUDA_CHECK(launch_relu_f32_inplace(c(), std::size_t{kM} * kN, ctx.stream()));
  }

};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::GemmReluFp32)
