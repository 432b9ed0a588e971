// Random weights for the synthetic transformer block of transformer_shape.hpp, allocated as
// harness inputs (hashed for mutation, filled from ctx.seed() and each tensor's name, so every
// variant that names them alike gets the same values). bf16 throughout.
//
// Layouts are torch.nn.Linear's: a weight is [out_features × in_features] row-major, so a
// projection is Y = X · Wᵀ (+ b) with X [tokens × in] row-major; cuBLAS calls this the "TN" form
// (both operands K-major). qkv_weight stacks Q, K and V: rows [0, d) make Q, [d, 2d) K, [2d, 3d)
// V, so the projection's output row holds [Q | K | V] and head h's part of each is the columns
// [h·head_dim, (h+1)·head_dim).
//
// Scales: a matrix with fan-in n is uniform in ±√(3/n) (unit variance in, unit variance out), so
// activations stay O(1) through the block; biases uniform in ±0.5 and LayerNorm gamma in [0.5,
// 1.5], beta in ±0.5, large enough that a dropped or misplaced one changes the output visibly.
#pragma once

#include <aisp/aisp.hpp>

#include <cmath>
#include <cstddef>
#include <string>

#include "transformer_shape.hpp"

namespace aisp::common {

struct TransformerBlockWeights {
  aisp::Tensor ln1_gamma, ln1_beta;     // [d]
  aisp::Tensor qkv_weight, qkv_bias;    // [3d × d], [3d]
  aisp::Tensor out_weight, out_bias;    // [d × d], [d]
  aisp::Tensor ln2_gamma, ln2_beta;     // [d]
  aisp::Tensor up_weight, up_bias;      // [ffn × d], [ffn]
  aisp::Tensor down_weight, down_bias;  // [d × ffn], [d]

  static TransformerBlockWeights create(aisp::Context& ctx, const TransformerShape& shape,
                                        const std::string& prefix = "block.") {
    shape.validate();
    const auto d = static_cast<std::size_t>(shape.d_model);
    const auto ffn = static_cast<std::size_t>(shape.ffn_dim);
    auto input = [&](const char* name, std::size_t count) {
      return ctx.alloc(prefix + name, aisp::DType::bf16, count, aisp::Role::input);
    };
    auto matrix = [&](const char* name, std::size_t rows, std::size_t fan_in) {
      aisp::Tensor t = input(name, rows * fan_in);
      const double bound = std::sqrt(3.0 / static_cast<double>(fan_in));
      ctx.fill_uniform(t, -bound, bound);
      return t;
    };
    auto vector = [&](const char* name, std::size_t count, double lo, double hi) {
      aisp::Tensor t = input(name, count);
      ctx.fill_uniform(t, lo, hi);
      return t;
    };
    TransformerBlockWeights w;
    w.ln1_gamma = vector("ln1.gamma", d, 0.5, 1.5);
    w.ln1_beta = vector("ln1.beta", d, -0.5, 0.5);
    w.qkv_weight = matrix("qkv.weight", 3 * d, d);
    w.qkv_bias = vector("qkv.bias", 3 * d, -0.5, 0.5);
    w.out_weight = matrix("out.weight", d, d);
    w.out_bias = vector("out.bias", d, -0.5, 0.5);
    w.ln2_gamma = vector("ln2.gamma", d, 0.5, 1.5);
    w.ln2_beta = vector("ln2.beta", d, -0.5, 0.5);
    w.up_weight = matrix("up.weight", ffn, d);
    w.up_bias = vector("up.bias", ffn, -0.5, 0.5);
    w.down_weight = matrix("down.weight", d, ffn);
    w.down_bias = vector("down.bias", d, -0.5, 0.5);
    return w;
  }

  // Bytes of every parameter, read once per forward pass.
  double bytes() const {
    double total = 0;
    for (const aisp::Tensor* t :
         {&ln1_gamma, &ln1_beta, &qkv_weight, &qkv_bias, &out_weight, &out_bias, &ln2_gamma,
          &ln2_beta, &up_weight, &up_bias, &down_weight, &down_bias})
      total += static_cast<double>(t->bytes());
    return total;
  }
};

}  // namespace aisp::common
