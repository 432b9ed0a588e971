// Baseline: 40 separate cublasSgemm calls of 512×512×512 on one stream. Each product alone is too
// small to fill the GPU (a 512×512 output is only a few dozen of cuBLAS's output tiles for 132
// SMs), and the calls run one after another, each paying its own launch and tail.
// 2·512³·40 ≈ 10.7 GFLOP; 126 MB (A, B read; C written). Ceiling: FP32 SIMT (no tensor cores).
#include "gemm_batched_common.cuh"

namespace aisp::ch01 {

struct GemmLoop : GemmBatchedProblem {
  void run(aisp::Context& ctx) override {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    for (int i = 0; i < kBatch; ++i) {
      AISP_CUBLAS_CHECK(cublasSgemm(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha,
                                    a() + i * kStrideA, kM, b() + i * kStrideB, kK, &beta,
                                    c() + i * kStrideC, kM));
    }
  }
};

}  // namespace aisp::ch01

AISP_VARIANT(aisp::ch01::GemmLoop)
