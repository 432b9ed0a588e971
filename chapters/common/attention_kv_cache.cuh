// A paged KV cache (vLLM's PagedAttention layout): the cache of every sequence lives in
// fixed-size pages of `page_size` tokens drawn from one pool, and a block table per sequence
// lists its pages in token order. Pages are allocated as a sequence grows and need not be
// contiguous, so no sequence reserves max_len rows up front and none is ever copied to grow.
//
// Pool layout: [num_pages, kv_heads, page_size, head_dim] BF16, so one (page, KV head) is a
// contiguous block of page_size·head_dim values (4 KiB at 16 tokens × 128 dims). Token t of
// sequence b, KV head h is at row t % page_size of page block_table[b][t / page_size].
// Used by the decode kernels (ch18) and the KV-cache memory pairs (ch13). Harness-free.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "attention_shapes.cuh"

namespace aisp::attention {

struct PagedKvLayout {
  int page_size = 16;
  int kv_heads = 8;
  int head_dim = 128;
  int max_pages_per_sequence = 0;  // block-table row length: ceil(max_length / page_size)
  int num_pages = 0;               // pool size: Σ_b ceil(cache_length(b) / page_size)

  // Element offset of (page, kv_head, row within the page, dim 0) in the pool.
  __host__ __device__ long long offset(int page, int kv_head, int row) const {
    return ((static_cast<long long>(page) * kv_heads + kv_head) * page_size + row) *
           static_cast<long long>(head_dim);
  }
  std::size_t pool_elements() const {
    return static_cast<std::size_t>(num_pages) * kv_heads * page_size * head_dim;
  }
};

// The layout holding exactly the decode shape's cache lengths (no spare pages).
PagedKvLayout paged_layout(const DecodeShape& shape, int page_size);

// Block table [batch, max_pages_per_sequence]: every sequence's pages, in token order, are pool
// pages taken from one random permutation of the pool (seeded), so consecutive pages of a
// sequence are scattered, as after a serving system's allocations and frees. Unused entries -1.
std::vector<int> scattered_block_table(const DecodeShape& shape, const PagedKvLayout& layout,
                                       std::uint64_t seed);

// Copies the valid rows of a contiguous cache [B, Hkv, max_length, D] into the pool through the
// block table (device pointers; enqueued on the stream). Rows of a last page past the sequence's
// length are zeroed. Setup-time work: it moves the whole cache once.
void launch_copy_cache_into_pages(const __nv_bfloat16* cache, __nv_bfloat16* pool,
                                  const int* block_table, const DecodeShape& shape,
                                  const PagedKvLayout& layout, cudaStream_t stream);

}  // namespace aisp::attention
