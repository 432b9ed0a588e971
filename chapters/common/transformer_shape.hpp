// The shape of the synthetic transformer block the chapters share: Llama-7B's width and heads
// (d_model 4096, 32 heads of 128), one sequence of `tokens` positions, and an MLP of width ffn_dim.
// The block the chapters build from it is pre-LayerNorm GPT style (transformer_weights.hpp):
//   x1 = x  + Wo · attention(LN1(x)) + bo          attention: causal, softmax(Q·Kᵀ/√head_dim)·V
//   y  = x1 + W2 · GELU(W1 · LN2(x1) + b1) + b2
// Its work, counted once here so every pair that runs the block declares the same numbers.
#pragma once

#include <aisp/aisp.hpp>

#include <stdexcept>
#include <string>

namespace aisp::common {

struct TransformerShape {
  int tokens = 0;   // rows of the activations (batch × sequence; one sequence here)
  int d_model = 0;  // width of the residual stream
  int heads = 0;    // attention heads; heads × head_dim == d_model
  int head_dim = 0;
  int ffn_dim = 0;  // hidden width of the MLP
  bool causal = true;
  float norm_eps = 1e-5f;  // LayerNorm epsilon

  // Throws std::invalid_argument naming the inconsistent sizes.
  void validate() const {
    auto fail = [](const std::string& what) {
      throw std::invalid_argument("TransformerShape: " + what);
    };
    if (tokens <= 0 || d_model <= 0 || heads <= 0 || head_dim <= 0 || ffn_dim <= 0)
      fail("every size must be positive");
    if (heads * head_dim != d_model)
      fail("heads × head_dim (" + std::to_string(heads) + " × " + std::to_string(head_dim) +
           ") must equal d_model (" + std::to_string(d_model) + ")");
    if (tokens % 8 != 0 || d_model % 8 != 0 || ffn_dim % 8 != 0 || head_dim % 8 != 0)
      fail("tokens, d_model, ffn_dim and head_dim must be multiples of 8 (16-byte bf16 vectors)");
  }

  void describe(aisp::Signature& s) const {
    s.set("tokens", tokens).set("d_model", d_model).set("heads", heads);
    s.set("head_dim", head_dim).set("ffn_dim", ffn_dim).set("causal", causal ? "yes" : "no");
  }

  // Multiply-adds × 2 of the four projections: QKV (d → 3d), output (d → d), up (d → ffn) and
  // down (ffn → d), for every token.
  double projection_flops() const {
    return 2.0 * tokens * static_cast<double>(d_model) * (4.0 * d_model + 2.0 * ffn_dim);
  }
  // Q·Kᵀ and P·V over all heads: 2 · 2 · tokens² · d_model; a causal block needs only the lower
  // triangle (half; the diagonal is noise at these sizes), which is what is counted.
  double attention_flops() const {
    const double full = 4.0 * static_cast<double>(tokens) * tokens * d_model;
    return causal ? full / 2 : full;
  }
  double matmul_flops() const { return projection_flops() + attention_flops(); }

  // Elements of the four weight matrices (the biases and LayerNorm parameters are ~0.01% more).
  double weight_matrix_elements() const {
    return static_cast<double>(d_model) * (4.0 * d_model + 2.0 * ffn_dim);
  }
  double activation_elements() const { return static_cast<double>(tokens) * d_model; }
};

// The block of chapter 14's transformer_block pair: 2048 tokens, d_model 4096, 32 heads of 128,
// MLP width 4 · d_model (GPT's ratio; a GELU MLP has two matrices, where Llama's SwiGLU has three
// of width 11008).
inline constexpr TransformerShape kTransformerBlock4096 = {
    /*tokens=*/2048,   /*d_model=*/4096, /*heads=*/32,      /*head_dim=*/128,
    /*ffn_dim=*/16384, /*causal=*/true,  /*norm_eps=*/1e-5f};

}  // namespace aisp::common
