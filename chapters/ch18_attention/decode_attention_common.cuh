// The decode_attention pair (problem: chapters/common/attention_decode_problem.cuh) and what its
// variants share: the kernels' tensor bundle, and the scratch of the split-K variants (an FP32
// partial output and log-sum-exp per (sequence, query head, 512-token chunk): 33.6 MB, written
// and read once per run: 1.3% of the KV bytes, left out of the workload).
#pragma once

#include <cuda_bf16.h>

#include "../common/attention_decode_problem.cuh"
#include "../common/attention_kv_cache.cuh"
#include "attention_kernels.cuh"

namespace aisp::ch18 {

using attention::DecodeAttentionProblem;

class DecodeSplitKProblem : public DecodeAttentionProblem {
 public:
  void setup(aisp::Context& ctx) override {
    DecodeAttentionProblem::setup(ctx);
    partial_o_ = ctx.alloc("partial_o", aisp::DType::f32, decode_partial_floats(shape()),
                           aisp::Role::scratch);
    partial_lse_ = ctx.alloc("partial_lse", aisp::DType::f32, decode_partial_rows(shape()),
                             aisp::Role::scratch);
  }

 protected:
  // The contiguous caches, or (paged) the pools and block table given.
  DecodeTensors tensors(const aisp::Tensor& k, const aisp::Tensor& v,
                        const int* block_table = nullptr) const {
    DecodeTensors t;
    t.q = q_tensor().as<const __nv_bfloat16>();
    t.k = k.as<const __nv_bfloat16>();
    t.v = v.as<const __nv_bfloat16>();
    t.cache_lengths = cache_lengths().as<const int>();
    t.block_table = block_table;
    t.o = o_tensor().as<__nv_bfloat16>();
    t.partial_o = partial_o_.as<float>();
    t.partial_lse = partial_lse_.as<float>();
    return t;
  }

 private:
  aisp::Tensor partial_o_, partial_lse_;
};

// Split-K over a paged cache of kPageSize-token pages: setup scatters the contiguous cache into
// a pool through a shuffled block table (attention_kv_cache.cuh); run reads only the pool.
template <int kPageSize>
class DecodePagedProblem : public DecodeSplitKProblem {
 public:
  void setup(aisp::Context& ctx) override {
    DecodeSplitKProblem::setup(ctx);
    layout_ = attention::paged_layout(shape(), kPageSize);
    k_pool_ = ctx.alloc("k_pool", aisp::DType::bf16, layout_.pool_elements(), aisp::Role::input);
    v_pool_ = ctx.alloc("v_pool", aisp::DType::bf16, layout_.pool_elements(), aisp::Role::input);
    const std::vector<int> table = attention::scattered_block_table(shape(), layout_, 0x5eed);
    block_table_ = ctx.alloc("block_table", aisp::DType::i32, table.size(), aisp::Role::input);
    AISP_CUDA_CHECK(cudaMemcpyAsync(block_table_.data(), table.data(), block_table_.bytes(),
                                    cudaMemcpyHostToDevice, ctx.stream()));
    attention::launch_copy_cache_into_pages(
        k_cache().as<const __nv_bfloat16>(), k_pool_.as<__nv_bfloat16>(),
        block_table_.as<const int>(), shape(), layout_, ctx.stream());
    AISP_CHECK_LAUNCH();
    attention::launch_copy_cache_into_pages(
        v_cache().as<const __nv_bfloat16>(), v_pool_.as<__nv_bfloat16>(),
        block_table_.as<const int>(), shape(), layout_, ctx.stream());
    AISP_CHECK_LAUNCH();
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  void run(aisp::Context& ctx) override {
    launch_decode_split_k(shape(), tensors(k_pool_, v_pool_, block_table_.as<const int>()),
                          kPageSize, ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  attention::PagedKvLayout layout_;
  aisp::Tensor k_pool_, v_pool_, block_table_;
};

}  // namespace aisp::ch18
