// Cheat (policy drift): switches the harness's cuBLAS handle to TF32 tensor-op math behind its
// back (a later fp32 GEMM would silently run in lower precision). Caught by: policies_unchanged.
#include <cublas_v2.h>

#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct MathModeDrift : GpuAffineProblem {
  void run(Context& ctx) override {
    AISP_CUBLAS_CHECK(cublasSetMathMode(ctx.cublas(), CUBLAS_TF32_TENSOR_OP_MATH));
    launch(ctx.stream());
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::MathModeDrift)
