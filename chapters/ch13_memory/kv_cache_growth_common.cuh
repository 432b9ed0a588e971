// The problem both kv_cache_growth variants solve: 512 decode steps of 8 sequences, each step
// appending one token's K and V (8 KV heads × 128 dims, BF16) to every sequence's cache, which
// starts empty; the result is each cache as it stands after the last step, contiguous
// [sequences, kv_heads, 512, 128] (K and V). The variants differ in how the cache grows:
//   baseline   a contiguous cache reallocated and copied at every step (what `torch.cat` on the
//              cache does): step t copies the t tokens already there, so the steps copy
//              T²/2 tokens in all (T = 512: 4.3 GB read + written), plus 2 allocations and
//              2 frees per step;
//   optimized  a pool of 16-token pages allocated once (setup) and a block table per sequence;
//              a step writes its row into the page that holds it, the pages never move.
// Inputs: "new_k", "new_v" [steps, sequences · kv_heads, head_dim] (each step's projections).
// Bytes: the new rows read once and the final caches written once: 2 × 2 × 8 MiB = 33.6 MB.
// FLOPs 0. Ceiling: HBM bandwidth (and, for 512 steps of tiny appends, launch cost).
// Timed call by call (direct): the baseline allocates inside run().
#pragma once

#include <cuda_bf16.h>

#include <aisp/aisp.hpp>

#include "kv_cache_kernels.cuh"

namespace aisp::ch13 {

class KvCacheGrowthProblem : public aisp::Benchmark {
 public:
  static constexpr int kSequences = 8;
  static constexpr int kKvHeads = 8;
  static constexpr int kHeadDim = 128;
  static constexpr int kSteps = 512;
  static constexpr int kRows = kSequences * kKvHeads;  // (sequence, KV head) rows of one step
  static constexpr std::size_t kStepElements = static_cast<std::size_t>(kRows) * kHeadDim;
  static constexpr std::size_t kCacheElements = kStepElements * kSteps;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("sequences", kSequences).set("kv_heads", kKvHeads).set("head_dim", kHeadDim);
    s.set("decode_steps", kSteps).set("initial_tokens", 0).set("dtype", aisp::DType::bf16);
    s.set("result_layout", "[sequence, kv_head, token, dim]");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    new_k_ = ctx.alloc("new_k", DType::bf16, kCacheElements, Role::input);
    new_v_ = ctx.alloc("new_v", DType::bf16, kCacheElements, Role::input);
    k_cache_ = ctx.alloc("k_cache", DType::bf16, kCacheElements, Role::output);
    v_cache_ = ctx.alloc("v_cache", DType::bf16, kCacheElements, Role::output);
    ctx.fill_uniform(new_k_, -1.0, 1.0);
    ctx.fill_uniform(new_v_, -1.0, 1.0);
  }

  std::vector<aisp::Tensor> outputs() const override { return {k_cache_, v_cache_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * 2.0 * 2.0 * static_cast<double>(kCacheElements);
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.counters.push_back({"tokens", static_cast<double>(kSequences) * kSteps, "tokens"});
    return w;
  }

  aisp::TimingMode timing_mode() const override { return aisp::TimingMode::direct; }

 protected:
  // Step t's K or V rows.
  const __nv_bfloat16* new_k(int t) const {
    return new_k_.as<const __nv_bfloat16>() + static_cast<std::size_t>(t) * kStepElements;
  }
  const __nv_bfloat16* new_v(int t) const {
    return new_v_.as<const __nv_bfloat16>() + static_cast<std::size_t>(t) * kStepElements;
  }
  __nv_bfloat16* k_cache() const { return k_cache_.as<__nv_bfloat16>(); }
  __nv_bfloat16* v_cache() const { return v_cache_.as<__nv_bfloat16>(); }

 private:
  aisp::Tensor new_k_, new_v_, k_cache_, v_cache_;
};

}  // namespace aisp::ch13
