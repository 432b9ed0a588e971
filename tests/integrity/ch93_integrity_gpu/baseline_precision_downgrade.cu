// Honest baseline for the 'precision_downgrade' cheat: cuBLAS SGEMM with the harness's default
// (fp32) math.
#include "sgemm_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_precision_downgrade : SgemmProblem {
  void run(Context& ctx) override {
    const float one = 1.0f, zero = 0.0f;
    AISP_CUBLAS_CHECK(cublasSgemm(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, kN, kN, kN, &one,
                                  a.as<float>(), kN, b.as<float>(), kN, &zero, c.as<float>(), kN));
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_precision_downgrade)
