// The shape of a mixture-of-experts (MoE) layer and how its tokens are routed: the numbers every
// MoE pair states in its signature, and the work it counts. Host code only (no CUDA, no harness).
//
// One layer: `tokens` tokens of width `hidden` each go to `top_k` of `experts` SwiGLU experts
// (expert e: W13_e, 2·intermediate × hidden, gate rows then up rows; W2_e, hidden ×
// intermediate), chosen by router logits given as an input (tokens × experts, f32). A token's
// output is the routing-weighted sum of its experts' outputs.
//
// Routing: the logits are Gumbel noise plus a log-prior, so the top-k of a token's logits is a
// draw of k distinct experts with probabilities ∝ prior (Gumbel-top-k, sampling without
// replacement). Uniform: every expert equally likely. Zipf: prior_e ∝ 1/(e+1)^s, a few hot
// experts; with s = 1 (host Monte Carlo, 200k tokens) the hottest expert receives 63% of the
// tokens with 8 experts top-2 (2.5× the mean load; the coldest 10%), and 89% with 64 experts
// top-8 (7.1× the mean; the coldest 3.4%).
//
// Work counted for a layer: the routed expert FLOPs, 2·tokens·top_k·3·hidden·intermediate (the
// three GEMMs of SwiGLU: gate, up and down; the router, the SwiGLU's elementwise work and the
// weighted sum are O(tokens·(experts + hidden + top_k·intermediate)), under 0.1% of it); bytes
// the layer must move at least once: every expert's weights in bf16 (3·experts·hidden·
// intermediate·2), x and y in bf16, the logits in f32.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace aisp::common {

enum class MoeRouting { uniform, zipf };

// Limits of the routing and grouped-GEMM kernels built on these shapes (a shared-memory table
// per expert, a register array per router lane).
inline constexpr int kMoeMaxExperts = 256;
inline constexpr int kMoeMaxTopK = 16;

struct MoeShape {
  int tokens = 0;
  int hidden = 0;
  int intermediate = 0;
  int experts = 0;
  int top_k = 0;
  MoeRouting routing = MoeRouting::uniform;
  double zipf_exponent = 1.0;  // used when routing == zipf

  // Token-expert pairs: rows of the expert GEMMs.
  long long assignments() const { return static_cast<long long>(tokens) * top_k; }

  double routed_flops() const {
    return 2.0 * tokens * top_k * 3.0 * static_cast<double>(hidden) * intermediate;
  }
  double weight_bytes_bf16() const {
    return 3.0 * experts * static_cast<double>(hidden) * intermediate * 2.0;
  }
  double layer_bytes() const {
    return weight_bytes_bf16() + 2.0 * 2.0 * tokens * static_cast<double>(hidden) +
           4.0 * tokens * static_cast<double>(experts);
  }

  std::string routing_name() const {
    if (routing == MoeRouting::uniform)
      return "uniform";
    char text[48];
    std::snprintf(text, sizeof(text), "zipf(s=%g)", zipf_exponent);
    return text;
  }

  // Throws std::invalid_argument naming what is out of range.
  void validate() const {
    const auto fail = [](const std::string& what) {
      throw std::invalid_argument("MoeShape: " + what);
    };
    if (tokens <= 0 || hidden <= 0 || intermediate <= 0)
      fail("tokens, hidden and intermediate must be positive");
    if (experts < 1 || experts > kMoeMaxExperts)
      fail("experts = " + std::to_string(experts) + ": must be 1.." +
           std::to_string(kMoeMaxExperts));
    if (top_k < 1 || top_k > experts || top_k > kMoeMaxTopK)
      fail("top_k = " + std::to_string(top_k) + ": must be 1..min(experts, " +
           std::to_string(kMoeMaxTopK) + ")");
    if (assignments() > (1ll << 31) - 1)
      fail("tokens · top_k must fit a 32-bit index");
    if (routing == MoeRouting::zipf && !(zipf_exponent > 0))
      fail("a Zipf routing needs a positive exponent");
  }
};

// Eight experts, top-2, Llama-7B's dimensions (hidden 4096, intermediate 11008): the shape of the
// MoE ladder (Mixtral-8x7B routes the same way, with intermediate 14336).
inline MoeShape moe_e8_top2(int tokens, MoeRouting routing) {
  return MoeShape{tokens, 4096, 11008, 8, 2, routing, 1.0};
}

// Sixty-four fine-grained experts, top-8: each expert a quarter of the 8-expert layer's width
// (11008 / 4 = 2752, rounded up to 2816, a multiple of the grouped kernels' 128-column tile), so
// the routed FLOPs stay within 2.3% of moe_e8_top2's while each expert sees a quarter of the
// tokens (1024 instead of 2048 rows at 8192 tokens, uniform routing) and the weights double.
inline MoeShape moe_e64_top8(int tokens, MoeRouting routing) {
  return MoeShape{tokens, 4096, 2816, 64, 8, routing, 1.0};
}

}  // namespace aisp::common
