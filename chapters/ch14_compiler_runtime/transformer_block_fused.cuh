// The fused block both optimized transformer_block variants run (one launches it on the stream,
// the other replays it as a CUDA graph). Against the eager baseline:
//   QKV projection + bias          one cuBLASLt matmul, CUBLASLT_EPILOGUE_BIAS
//   Q·Kᵀ × 1/√128, causal mask,    one flash-attention kernel (chapter 18's FA3-style kernel,
//   softmax, P·V                   flash_attention_fa3.cu: wgmma + TMA, warp-specialized): the
//                                  scores and probabilities live in registers and never touch
//                                  memory, the key tiles above the diagonal are skipped (the lower
//                                  triangle's 34 GFLOP, not the square's 69), and it reads Q, K, V
//                                  straight out of the QKV GEMM's [tokens, 3·4096] output through
//                                  TMA maps with that row pitch and writes O as [tokens, 4096] for
//                                  the output projection: no permute, no copy
//   O·Woᵀ + bo + x (residual)      one cuBLASLt matmul: EPILOGUE_BIAS with beta = 1 and C = x
//   LN2                            unchanged (its input, x1, is an output of the block anyway)
//   GELU(h2·W1ᵀ + b1)              one cuBLASLt matmul, CUBLASLT_EPILOGUE_GELU_BIAS
//   g·W2ᵀ + b2 + x1 (residual)     one cuBLASLt matmul: EPILOGUE_BIAS with beta = 1 and C = x1
// 7 launches instead of 18. Traffic beyond the GEMMs' operands: the two LayerNorms (x, x1 read,
// h1, h2 written: ~67 MB) and the attention kernel's Q, K, V reads and O write (~67 MB once; K and
// V are re-read from L2 by each query block of a head). Gone against the eager block, ~2.7 GB:
// every elementwise pass but the LayerNorms (bias, GELU, residual, scale, mask, softmax: ~2.1 GB)
// and the 268 MB score and probability matrices its attention GEMMs write and read. Attention
// FLOPs computed: the 16·17/2 = 136 of 256 128 × 128 tiles on or below the diagonal, 36.5 GFLOP
// (34 of them the visible pairs) instead of the baseline's 69. The residual adds ride in the
// GEMMs' epilogues (C read once as the GEMM writes D) rather than in a fused residual + LayerNorm
// kernel: x1 must be written either way, and this way nothing reads it back for the add.
// cuBLASLt's GELU is the tanh form, which is why the block is defined with it. The attention kernel
// is sm_90a only (wgmma, TMA): both variants declare Feature::wgmma and Feature::tma.
#pragma once

#include <cublasLt.h>

#include <optional>
#include <stdexcept>

#include "../ch18_attention/attention_kernels.cuh"
#include "../common/cublaslt_matmul_plan.hpp"
#include "layer_norm_bf16.cuh"
#include "transformer_block_common.cuh"

namespace aisp::ch14 {

class FusedTransformerBlockProblem : public TransformerBlockProblem {
 public:
  // Workspace for cuBLASLt's algorithms.
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

  // The attention of the block as chapter 18's forward shape: one sequence of all the tokens,
  // causal, 1/√head_dim scale (ForwardShape::softmax_scale).
  static constexpr aisp::attention::ForwardShape attention_shape() {
    aisp::attention::ForwardShape a;
    a.batch = 1;
    a.heads = kShape.heads;
    a.seq = kShape.tokens;
    a.head_dim = kShape.head_dim;
    a.mask = aisp::attention::MaskKind::causal;
    return a;
  }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::wgmma, aisp::Feature::tma};
    return r;
  }

  void setup(aisp::Context& ctx) override {
    TransformerBlockProblem::setup(ctx);
    if (!aisp::ch18::flash_fa3_built_for_sm90a())
      throw std::runtime_error(
          "transformer_block fused: this binary has no sm_90a code for the GPU (the flash-"
          "attention kernel needs wgmma); build with CMAKE_CUDA_ARCHITECTURES including 90a");
    const double T = kShape.tokens, d = kShape.d_model;
    normalized1_ = scratch(ctx, "ln1_out", T * d);
    qkv_ = scratch(ctx, "qkv", T * 3 * d);
    attention_ = scratch(ctx, "attention_out", T * d);
    normalized2_ = scratch(ctx, "ln2_out", T * d);
    activated_ = scratch(ctx, "mlp_gelu", T * kShape.ffn_dim);
    lt_workspace_ =
        ctx.alloc("cublaslt_workspace", aisp::DType::u8, kWorkspaceBytes, aisp::Role::scratch);

    const auto& w = weights();
    const int tokens = kShape.tokens, dm = kShape.d_model, ffn = kShape.ffn_dim;
    qkv_plan_.emplace(plan(tokens, 3 * dm, dm, CUBLASLT_EPILOGUE_BIAS, w.qkv_bias));
    out_plan_.emplace(plan(tokens, dm, dm, CUBLASLT_EPILOGUE_BIAS, w.out_bias));
    up_plan_.emplace(plan(tokens, ffn, dm, CUBLASLT_EPILOGUE_GELU_BIAS, w.up_bias));
    down_plan_.emplace(plan(tokens, dm, ffn, CUBLASLT_EPILOGUE_BIAS, w.down_bias));

    // The flash kernel's TMA maps over the QKV GEMM's output: row t is token t, Q | K | V side by
    // side (head h at columns h·128 of each), 3·d_model elements per row; O is [tokens, d_model].
    auto* qkv = qkv_.as<bf16>();
    aisp::ch18::ForwardTensors t;
    t.q = qkv;
    t.k = qkv + kShape.d_model;
    t.v = qkv + 2 * kShape.d_model;
    t.o = attention_.as<bf16>();
    attention_maps_ = aisp::ch18::make_flash_wgmma_maps_token_major(
        attention_shape(), t, 3LL * kShape.d_model, kShape.d_model);
  }

  void teardown(aisp::Context&) override {
    qkv_plan_.reset();
    out_plan_.reset();
    up_plan_.reset();
    down_plan_.reset();
  }

 protected:
  // The whole block on `stream`.
  void enqueue_fused_block(cudaStream_t stream) const {
    const int T = kShape.tokens, d = kShape.d_model;
    const auto& w = weights();
    auto* h1 = normalized1_.as<bf16>();
    auto* qkv = qkv_.as<bf16>();
    auto* o = attention_.as<bf16>();
    auto* h2 = normalized2_.as<bf16>();
    auto* g = activated_.as<bf16>();
    const float one = 1.0f, zero = 0.0f;

    launch_layer_norm_bf16(x(), in(w.ln1_gamma), in(w.ln1_beta), h1, T, d, kShape.norm_eps, stream);
    matmul(*qkv_plan_, h1, w.qkv_weight, zero, nullptr, qkv, stream);
    // Causal attention, all heads in one launch: per (128-query block, head) a CTA that visits
    // only the key tiles up to the diagonal and masks inside the diagonal tile; the token-major
    // maps order the blocks in groups of 16 heads, longest query blocks first, heads fastest.
    aisp::ch18::launch_flash_fa3(attention_shape(), attention_maps_, o,
                                 aisp::ch18::MaskedTiles::skip, stream);
    AISP_CHECK_LAUNCH();
    matmul(*out_plan_, o, w.out_weight, one, x(), x1(), stream);  // + bo + x
    launch_layer_norm_bf16(x1(), in(w.ln2_gamma), in(w.ln2_beta), h2, T, d, kShape.norm_eps,
                           stream);
    matmul(*up_plan_, h2, w.up_weight, zero, nullptr, g, stream);   // GELU(· + b1)
    matmul(*down_plan_, g, w.down_weight, one, x1(), y(), stream);  // + b2 + x1
  }

 private:
  using Plan = aisp::common::CublasLtMatmulPlan;
  // Row-major [tokens × out] = [tokens × in] · Wᵀ with the epilogue and its bias vector.
  Plan plan(int tokens, int out_features, int in_features, cublasLtEpilogue_t epilogue,
            const aisp::Tensor& bias) const {
    Plan p = Plan::row_major_tn(tokens, out_features, in_features, CUDA_R_16BF, CUDA_R_16BF,
                                CUDA_R_16BF);
    p.set_operation_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue);
    p.set_operation_attribute(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias.data());
    p.set_operation_attribute(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, CUDA_R_16BF);
    p.choose_algorithm(kWorkspaceBytes);
    return p;
  }

  // D = A · Wᵀ (+ epilogue) + beta · C; C is the residual when beta is 1 (it must then be given).
  void matmul(const Plan& p, const bf16* a, const aisp::Tensor& weight, float beta, const bf16* c,
              bf16* d, cudaStream_t stream) const {
    const float alpha = 1.0f;
    AISP_CUBLAS_CHECK(p.run(&alpha, a, weight.data(), &beta, c != nullptr ? c : d, d,
                            lt_workspace_.data(), lt_workspace_.bytes(), stream));
  }

  aisp::Tensor normalized1_, qkv_, attention_, normalized2_, activated_;
  aisp::Tensor lt_workspace_;
  std::optional<Plan> qkv_plan_, out_plan_, up_plan_, down_plan_;
  aisp::ch18::FlashWgmmaMaps attention_maps_{};
};

}  // namespace aisp::ch14
