// The moe_router pairs: the router of a mixture-of-experts layer on its own, from the logits to
// each token's top-k experts, their weights and every expert's token count (the conventions of
// chapters/common/moe_routing.cuh). The problem is written once here; the variants differ only in
// run():
//   MoeRouterSeparate  top-k -> softmax -> histogram, three kernels (moe_router_kernels.cuh): the
//                      ids and selected logits go to memory between them, the histogram reads
//                      the ids back
//   MoeRouterFused     one kernel: the top-k in registers, the softmax over the k selected, the
//                      histogram in shared memory (moe_routing.cuh)
// Both select on the logits with the same tie rule, so their ids agree exactly. (Selecting on
// softmax probabilities instead, as some frameworks do, can swap two logits closer than the f32
// rounding of exp: with 65536 tokens top-8 a few percent of runs would hold such a token.)
// Inputs: logits, tokens × experts f32 (the MoE layer's: Gumbel noise + the routing's log-prior,
// chapters/common/moe_layer_problem.hpp). Outputs: topk_weights (f32), topk_ids (i32),
// expert_counts (i32). Bytes the problem must move: the logits read, the outputs written once;
// no FLOPs counted (a few per logit). Ceiling: HBM bandwidth. Host code only.
#pragma once

#include <aisp/aisp.hpp>

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "../common/moe_reference.hpp"
#include "../common/moe_routing.cuh"
#include "../common/moe_shape.hpp"
#include "moe_router_kernels.cuh"

namespace aisp::ch17 {

// A prefill batch of 65536 tokens over 64 experts, top-8 (the e64 layer's router).
struct RouterE64Top8 {
  static common::MoeShape shape() {
    return common::moe_e64_top8(65536, common::MoeRouting::uniform);
  }
};
struct RouterE64Top8Zipf {
  static common::MoeShape shape() { return common::moe_e64_top8(65536, common::MoeRouting::zipf); }
};

class MoeRouterProblem : public aisp::Benchmark {
 public:
  explicit MoeRouterProblem(common::MoeShape shape) : s_(shape) { s_.validate(); }

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("tokens", s_.tokens).set("experts", s_.experts).set("top_k", s_.top_k);
    s.set("routing", s_.routing_name()).set("logits", aisp::DType::f32);
    s.set("weights", "softmax over the k selected logits");
    return s;
  }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 70;
    return r;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    const std::size_t tokens = static_cast<std::size_t>(s_.tokens);
    const std::size_t slots = tokens * static_cast<std::size_t>(s_.top_k);
    logits_ =
        ctx.alloc("logits", DType::f32, tokens * static_cast<std::size_t>(s_.experts), Role::input);
    weights_ = ctx.alloc("topk_weights", DType::f32, slots, Role::output);
    ids_ = ctx.alloc("topk_ids", DType::i32, slots, Role::output);
    counts_ =
        ctx.alloc("expert_counts", DType::i32, static_cast<std::size_t>(s_.experts), Role::output);
    ctx.fill_uniform(logits_, 1e-6, 1.0 - 1e-6);
    AISP_CUDA_CHECK(common::launch_moe_logits_from_uniform(
        logits_.as<float>(), s_.tokens, s_.experts, s_.routing, s_.zipf_exponent, ctx.stream()));
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  std::vector<aisp::Tensor> outputs() const override { return {weights_, ids_, counts_}; }

  std::optional<aisp::InputDomain> input_domain() const override {
    return common::moe_logits_input_domain();
  }

  // The weights (output 0) from the host router; the integer outputs are compared exactly.
  ReferenceFunction reference() const override {
    const common::MoeShape s = s_;
    return [s](const aisp::HostInputs& in, std::size_t output, std::size_t index) {
      if (output != 0)
        return 0.0;
      const std::size_t token = index / static_cast<std::size_t>(s.top_k);
      const std::size_t experts = static_cast<std::size_t>(s.experts);
      const common::MoeTokenRoute route =
          common::moe_route_token(in.f32("logits").subspan(token * experts, experts), s.top_k);
      return route.weights[index % static_cast<std::size_t>(s.top_k)];
    };
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    const double tokens = s_.tokens, experts = s_.experts, k = s_.top_k;
    w.bytes = 4.0 * tokens * experts + 8.0 * tokens * k + 4.0 * experts;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::none;
    w.counters = {{"tokens", tokens, "tokens"}};
    return w;
  }

 protected:
  const common::MoeShape& shape() const { return s_; }
  const float* logits() const { return logits_.as<const float>(); }
  float* weights() const { return weights_.as<float>(); }
  int* ids() const { return ids_.as<int>(); }
  int* counts() const { return counts_.as<int>(); }

 private:
  common::MoeShape s_;
  aisp::Tensor logits_, weights_, ids_, counts_;
};

template <class Config>
class MoeRouterSeparate : public MoeRouterProblem {
 public:
  MoeRouterSeparate() : MoeRouterProblem(Config::shape()) {}

  void setup(aisp::Context& ctx) override {
    MoeRouterProblem::setup(ctx);
    const common::MoeShape& s = shape();
    topk_logits_ = ctx.alloc("topk_logits", aisp::DType::f32,
                             static_cast<std::size_t>(s.assignments()), aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const common::MoeShape& s = shape();
    auto* topk_logits = topk_logits_.as<float>();
    AISP_CUDA_CHECK(launch_router_topk(logits(), s.tokens, s.experts, s.top_k, ids(), topk_logits,
                                       ctx.stream()));
    AISP_CUDA_CHECK(launch_router_softmax(topk_logits, s.tokens, s.top_k, weights(), ctx.stream()));
    AISP_CUDA_CHECK(launch_router_histogram(ids(), static_cast<int>(s.assignments()), s.experts,
                                            counts(), ctx.stream()));
  }

 private:
  aisp::Tensor topk_logits_;
};

template <class Config>
class MoeRouterFused : public MoeRouterProblem {
 public:
  MoeRouterFused() : MoeRouterProblem(Config::shape()) {}

  void run(aisp::Context& ctx) override {
    const common::MoeShape& s = shape();
    AISP_CUDA_CHECK(common::launch_moe_route_fused(logits(), s.tokens, s.experts, s.top_k, ids(),
                                                   weights(), counts(), ctx.stream()));
  }
};

}  // namespace aisp::ch17
