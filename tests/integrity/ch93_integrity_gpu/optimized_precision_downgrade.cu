// Cheat: the same fp32 GEMM asked of cuBLAS with TF32 compute (10-bit mantissas) for this one
// call — the handle's math mode stays as the harness set it — and a tolerance loosened to match.
// Caught by: precision_preserved (error against the float64 reference ~10x the baseline's).
#include "sgemm_problem.cuh"

namespace aisp::integrity_gpu {
struct PrecisionDowngrade : SgemmProblem {
  void run(Context& ctx) override {
    const float one = 1.0f, zero = 0.0f;
    AISP_CUBLAS_CHECK(cublasGemmEx(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one,
                                   a.data(), CUDA_R_32F, kN, b.data(), CUDA_R_32F, kN, &zero,
                                   c.data(), CUDA_R_32F, kN, CUBLAS_COMPUTE_32F_FAST_TF32,
                                   CUBLAS_GEMM_DEFAULT));
  }
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{1e-2, 5e-2, "tensor-core fast path; 1% is plenty for this use"};
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::PrecisionDowngrade)
