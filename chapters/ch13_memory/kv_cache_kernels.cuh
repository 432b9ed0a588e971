// Launchers of the ch13 KV-cache kernels (kv_cache_kernels.cu). Harness-free: device pointers,
// sizes and a stream. Layouts:
//   contiguous cache: [sequences, kv_heads, tokens, head_dim] BF16 (one row per token and head);
//   paged pool: chapters/common/attention_kv_cache.cuh ([pages, kv_heads, page_size, head_dim],
//   a block table [sequences, pages_per_sequence] of pool page indices).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "../common/attention_kv_cache.cuh"

namespace aisp::ch13 {

// One decode step's K and V (src: [rows, head_dim], rows = sequences · kv_heads) and the caches
// they are appended to (contiguous caches or paged pools).
struct KvPointers {
  __nv_bfloat16* k_cache = nullptr;
  __nv_bfloat16* v_cache = nullptr;
  const __nv_bfloat16* k_src = nullptr;
  const __nv_bfloat16* v_src = nullptr;
};

// Token `token` of every (sequence, KV head) row written into contiguous caches whose rows hold
// `row_tokens` tokens. One kernel for K and V.
void launch_append_contiguous(const KvPointers& kv, int rows, int row_tokens, int token,
                              int head_dim, cudaStream_t stream);

// The same step written into the paged pools through the block table: sequence b's token
// `token` goes to row token % page_size of page block_table[b][token / page_size].
void launch_append_paged(const KvPointers& kv, const int* block_table, int sequences, int token,
                         const attention::PagedKvLayout& layout, cudaStream_t stream);

// The first `tokens` tokens of every sequence, from the pool into a contiguous cache
// [sequences, kv_heads, tokens, head_dim].
void launch_gather_pages(__nv_bfloat16* cache, const __nv_bfloat16* pool, const int* block_table,
                         int sequences, int tokens, const attention::PagedKvLayout& layout,
                         cudaStream_t stream);

}  // namespace aisp::ch13
