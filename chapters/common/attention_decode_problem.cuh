// The decode attention problem (one generation step): each of B sequences has one new query token
// per query head and a KV cache of its own length; o = softmax(q·Kᵀ / sqrt(D)) · V per
// (sequence, query head), query head h reading KV head h / group (grouped-query attention).
// Shape: DecodeShape (attention_shapes.cuh), by default 32 sequences, 32 query heads over 8 KV
// heads, D 128, cache lengths spread linearly from 8192 to 32768 tokens (655 360 in all), BF16.
//
// Inputs: "q" [B, Hq, D], the contiguous caches "k_cache", "v_cache" [B, Hkv, 32768, D] (rows past
// a sequence's length are allocated and filled but never part of the problem) and
// "cache_lengths" [B] (int32). The paged variants build their pool from the contiguous caches in
// setup (attention_kv_cache.cuh), so every variant attends over the same values.
// Bytes: the K and V rows inside the cache lengths, read once (2.68 GB); q and o (0.5 MB) are
// left out, as the issue states (0.02%). FLOPs: 4·D per (query head, cache row), 10.7 GFLOP.
#pragma once

#include <aisp/aisp.hpp>

#include <memory>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "attention_shapes.cuh"

namespace aisp::attention {

class DecodeAttentionProblem : public aisp::Benchmark {
 public:
  explicit DecodeAttentionProblem(DecodeShape shape = {}) : shape_(shape) {}

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("batch", shape_.batch).set("q_heads", shape_.q_heads).set("kv_heads", shape_.kv_heads);
    s.set("head_dim", shape_.head_dim).set("dtype", aisp::DType::bf16);
    s.set("cache_lengths",
          std::to_string(shape_.min_length) + ".." + std::to_string(shape_.max_length) + " linear");
    s.set("cache_tokens", static_cast<long long>(shape_.total_tokens()));
    s.set("query_tokens_per_sequence", 1);
    return s;
  }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 80;  // mma.sync BF16, movmatrix
    return r;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    q_ = ctx.alloc("q", DType::bf16, shape_.q_elements(), Role::input);
    k_cache_ = ctx.alloc("k_cache", DType::bf16, shape_.cache_elements(), Role::input);
    v_cache_ = ctx.alloc("v_cache", DType::bf16, shape_.cache_elements(), Role::input);
    lengths_ =
        ctx.alloc("cache_lengths", DType::i32, static_cast<std::size_t>(shape_.batch), Role::input);
    o_ = ctx.alloc("o", DType::bf16, shape_.q_elements(), Role::output);
    ctx.fill_uniform(q_, -2.0, 2.0);
    ctx.fill_uniform(k_cache_, -2.0, 2.0);
    ctx.fill_uniform(v_cache_, -1.0, 1.0);
    std::vector<int> lengths(static_cast<std::size_t>(shape_.batch));
    for (int b = 0; b < shape_.batch; ++b)
      lengths[static_cast<std::size_t>(b)] = shape_.cache_length(b);
    AISP_CUDA_CHECK(cudaMemcpyAsync(lengths_.data(), lengths.data(), lengths_.bytes(),
                                    cudaMemcpyHostToDevice, ctx.stream()));
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  std::vector<aisp::Tensor> outputs() const override { return {o_}; }

  ReferenceFunction reference() const override {
    auto reference = std::make_shared<DecodeAttentionReference>(shape_);
    return [reference](const aisp::HostInputs& in, std::size_t output, std::size_t index) {
      return (*reference)(in, output, index);
    };
  }

  // An output row (one query's D values) shares its softmax over the keys: the reference keeps
  // the last row, so verification samples rows and elements within them (64 x 32).
  std::size_t reference_row_length() const override {
    return static_cast<std::size_t>(shape_.head_dim);
  }

  // Tolerance: BF16's default (rtol 8e-3, atol 1e-3), as the forward problem's. On the H200
  // (probe, 2026-11-23) the split-K and paged kernels differed from the per-head baseline by at
  // most 2.4e-4 (8e-5 beyond rtol·|b|); the float64 reference (relative RMS 1.9e-3 to 2.1e-3 for
  // every variant) is what catches a real error.

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = shape_.kv_bytes();
    w.flops = shape_.flops();
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::bf16_tensor;
    w.counters.push_back({"tokens", static_cast<double>(shape_.batch), "tokens"});
    return w;
  }

  const DecodeShape& shape() const { return shape_; }

 protected:
  const aisp::Tensor& q_tensor() const { return q_; }
  const aisp::Tensor& k_cache() const { return k_cache_; }
  const aisp::Tensor& v_cache() const { return v_cache_; }
  const aisp::Tensor& cache_lengths() const { return lengths_; }
  const aisp::Tensor& o_tensor() const { return o_; }

 private:
  DecodeShape shape_;
  aisp::Tensor q_, k_cache_, v_cache_, lengths_, o_;
};

}  // namespace aisp::attention
