// The textbook attention, unfused: three steps through device memory.
//   1. scores = Q·Kᵀ / sqrt(D): one cuBLAS strided-batched GEMM per (batch, head), BF16 in,
//      FP32 out (m = n = S, k = D).
//   2. P = softmax(scores) row by row (row_softmax.cu), FP32 in, BF16 out.
//   3. O = P·V: a second strided-batched GEMM (m = D, n = S, k = S), BF16 in and out, FP32
//      accumulation.
// The S×S matrices are materialised: scores (B·H·S²·4 bytes = 4.29 GB at S 4096) and P
// (2.15 GB) are scratch allocated in setup. Each is written once and read once, so the run moves
// 12.9 GB more than the 268 MB the problem needs; at the measured copy bandwidth that alone is
// ≈ 3 ms, several times the GEMMs' own time. This is the cost flash attention removes.
// Layout note: cuBLAS is column-major; a row-major [S, D] matrix is a column-major D×S one.
// scores (row-major [Sq, Sk]) is computed as the column-major Sk×Sq product Kᵀᵀ·Qᵀ: op(A) = Kᵀ
// of the column-major D×Sk matrix K (OP_T), B = the column-major D×Sq matrix Q (OP_N). O
// (row-major [Sq, D]) is the column-major D×Sq product V(D×Sk)·P(Sk×Sq), both OP_N.
#pragma once

#include <cublas_v2.h>

#include "attention_forward_common.cuh"

namespace aisp::ch18 {

class UnfusedAttention : public ForwardAttentionProblem {
 public:
  using ForwardAttentionProblem::ForwardAttentionProblem;

  void setup(aisp::Context& ctx) override {
    ForwardAttentionProblem::setup(ctx);
    const ForwardShape& s = shape();
    if (s.mask != MaskKind::none)
      throw std::invalid_argument("unfused attention: this baseline applies no mask");
    const std::size_t score_count =
        static_cast<std::size_t>(s.batch) * s.heads * static_cast<std::size_t>(s.seq) * s.seq;
    scores_ = ctx.alloc("scores", aisp::DType::f32, score_count, aisp::Role::scratch);
    probs_ = ctx.alloc("probs", aisp::DType::bf16, score_count, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const ForwardShape& s = shape();
    const long long seq = s.seq, dim = s.head_dim;
    const int batch = s.batch * s.heads;
    const float scale = s.softmax_scale(), one = 1.0f, zero = 0.0f;
    AISP_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        ctx.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, s.seq, s.seq, s.head_dim, &scale, k(), CUDA_R_16BF,
        s.head_dim, seq * dim, q(), CUDA_R_16BF, s.head_dim, seq * dim, &zero, scores_.data(),
        CUDA_R_32F, s.seq, seq * seq, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    launch_row_softmax(scores_.as<const float>(), probs_.as<__nv_bfloat16>(),
                       static_cast<long long>(batch) * seq, s.seq, ctx.stream());
    AISP_CHECK_LAUNCH();
    AISP_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, s.head_dim, s.seq, s.seq, &one, v(), CUDA_R_16BF,
        s.head_dim, seq * dim, probs_.data(), CUDA_R_16BF, s.seq, seq * seq, &zero, o(),
        CUDA_R_16BF, s.head_dim, seq * dim, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

 private:
  aisp::Tensor scores_, probs_;
};

}  // namespace aisp::ch18
