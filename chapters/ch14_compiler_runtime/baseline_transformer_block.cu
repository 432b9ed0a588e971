// Baseline: the block as an eager framework runs it, one library call or kernel per operation,
// every intermediate written to HBM in bf16 and read back by the next operation:
//    1 LN1              2 QKV GEMM          3 + bqkv
//    4 Q·Kᵀ (batched)   5 × 1/√128          6 causal masked fill (-inf)   7 softmax
//    8 P·V (batched)    9 Wo GEMM          10 + bo      11 x1 = x + ·     12 LN2
//   13 W1 GEMM         14 + b1             15 GELU      16 W2 GEMM        17 + b2     18 y = x1 + ·
// 7 cuBLAS calls (cublasGemmEx, cublasGemmStridedBatchedEx; default math, fp32 accumulation) and
// 11 kernels, launched one after another on the stream. Beyond the GEMMs' own traffic the
// elementwise kernels move ~2.2 GB, 1.6 GB of it the 268 MB score matrix read and written by the
// scale, mask and softmax kernels.
// FLOPs counted: 859 G (projections + causal attention); cuBLAS runs the full attention square.
// Ceiling: BF16 tensor cores.
#include <cublas_v2.h>

#include <cmath>

#include "attention_softmax_bf16.cuh"
#include "elementwise_bf16.cuh"
#include "layer_norm_bf16.cuh"
#include "transformer_block_common.cuh"

namespace aisp::ch14 {
namespace {

// Y [tokens × out] = X [tokens × in] · Wᵀ, W [out × in] row-major (column-major: Yᵀ = W·Xᵀ).
void linear(cublasHandle_t handle, const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
            int tokens, int in_features, int out_features) {
  const float one = 1.0f, zero = 0.0f;
  AISP_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, out_features, tokens,
                                 in_features, &one, w, CUDA_R_16BF, in_features, x, CUDA_R_16BF,
                                 in_features, &zero, y, CUDA_R_16BF, out_features,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

struct TransformerBlockEager : TransformerBlockProblem {
  void setup(aisp::Context& ctx) override {
    TransformerBlockProblem::setup(ctx);
    const double T = kShape.tokens, d = kShape.d_model;
    normalized1_ = scratch(ctx, "ln1_out", T * d);
    qkv_ = scratch(ctx, "qkv", T * 3 * d);
    scores_ = scratch(ctx, "scores", kShape.heads * T * T);
    probabilities_ = scratch(ctx, "probabilities", kShape.heads * T * T);
    attention_ = scratch(ctx, "attention_out", T * d);
    projected_ = scratch(ctx, "out_proj", T * d);
    normalized2_ = scratch(ctx, "ln2_out", T * d);
    hidden_ = scratch(ctx, "mlp_hidden", T * kShape.ffn_dim);
    activated_ = scratch(ctx, "mlp_gelu", T * kShape.ffn_dim);
    down_ = scratch(ctx, "mlp_out", T * d);
  }

  void run(aisp::Context& ctx) override {
    const int T = kShape.tokens, d = kShape.d_model, H = kShape.heads, hd = kShape.head_dim;
    const int ffn = kShape.ffn_dim;
    const auto count = static_cast<std::size_t>(T) * d;
    const auto scores = static_cast<std::size_t>(H) * T * T;
    cublasHandle_t handle = ctx.cublas();
    cudaStream_t stream = ctx.stream();
    const auto& w = weights();
    auto* h1 = normalized1_.as<bf16>();
    auto* qkv = qkv_.as<bf16>();
    auto* s = scores_.as<bf16>();
    auto* p = probabilities_.as<bf16>();
    auto* o = attention_.as<bf16>();
    auto* a = projected_.as<bf16>();
    auto* h2 = normalized2_.as<bf16>();
    auto* u = hidden_.as<bf16>();
    auto* g = activated_.as<bf16>();
    auto* v = down_.as<bf16>();

    launch_layer_norm_bf16(x(), in(w.ln1_gamma), in(w.ln1_beta), h1, T, d, kShape.norm_eps, stream);
    linear(handle, h1, in(w.qkv_weight), qkv, T, d, 3 * d);
    launch_add_bias_bf16(qkv, in(w.qkv_bias), qkv, T, 3 * static_cast<std::size_t>(d), stream);

    // Per head h, column-major: S_hᵀ (keys × queries, ld T) = K_h · Q_hᵀ, where Q_h and K_h are
    // the [T × hd] column blocks of qkv (ld 3d): S row-major is [h][query][key].
    const float one = 1.0f, zero = 0.0f;
    const long long ld_qkv = 3LL * d;
    AISP_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, CUBLAS_OP_T, CUBLAS_OP_N, T, T, hd, &one, qkv + d, CUDA_R_16BF, ld_qkv, hd, qkv,
        CUDA_R_16BF, ld_qkv, hd, &zero, s, CUDA_R_16BF, T, static_cast<long long>(T) * T, H,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    launch_scale_bf16(s, 1.0f / std::sqrt(static_cast<float>(hd)), s, scores, stream);
    launch_causal_mask_fill_bf16(s, s, H, T, stream);
    launch_softmax_rows_bf16(s, p, static_cast<std::size_t>(H) * T, T, stream);
    // O_hᵀ (hd × queries, ld d) = V_hᵀ · P_hᵀ: head h's output lands in columns [h·hd, (h+1)·hd).
    AISP_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, hd, T, T, &one, qkv + 2 * d, CUDA_R_16BF, ld_qkv, hd, p,
        CUDA_R_16BF, T, static_cast<long long>(T) * T, &zero, o, CUDA_R_16BF, d, hd, H,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));

    linear(handle, o, in(w.out_weight), a, T, d, d);
    launch_add_bias_bf16(a, in(w.out_bias), a, T, d, stream);
    launch_add_bf16(x(), a, x1(), count, stream);
    launch_layer_norm_bf16(x1(), in(w.ln2_gamma), in(w.ln2_beta), h2, T, d, kShape.norm_eps,
                           stream);

    linear(handle, h2, in(w.up_weight), u, T, d, ffn);
    launch_add_bias_bf16(u, in(w.up_bias), u, T, ffn, stream);
    launch_gelu_tanh_bf16(u, g, static_cast<std::size_t>(T) * ffn, stream);
    linear(handle, g, in(w.down_weight), v, T, ffn, d);
    launch_add_bias_bf16(v, in(w.down_bias), v, T, d, stream);
    launch_add_bf16(x1(), v, y(), count, stream);
  }

 private:
  aisp::Tensor normalized1_, qkv_, scores_, probabilities_, attention_, projected_, normalized2_,
      hidden_, activated_, down_;
};

}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::TransformerBlockEager)
