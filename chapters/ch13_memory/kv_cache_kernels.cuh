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

// Rotary position embedding (the "rotate half" form of GPT-NeoX/Llama, base 10000): for
// i < D/2, with angle = position · 10000^(−2i/D),
//   y[i] = x[i]·cos − x[i + D/2]·sin,  y[i + D/2] = x[i + D/2]·cos + x[i]·sin,
// in FP32 from BF16 inputs, rounded to BF16. Every kernel below uses the same device function, so
// separate and fused paths agree to the bit.
struct RopeStep {
  int sequences = 0;
  int tokens = 0;  // new tokens per sequence this step
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  const int* first_position = nullptr;  // [sequences]: position of the step's first token
};

// Separate path, kernel 1: q_rot = rope(q), k_rot = rope(k); q, q_rot [seq, tokens, Hq, D], k,
// k_rot [seq, tokens, Hkv, D].
void launch_rope_qk(const RopeStep& step, const __nv_bfloat16* q, const __nv_bfloat16* k,
                    __nv_bfloat16* q_rot, __nv_bfloat16* k_rot, cudaStream_t stream);
// Separate path, kernel 2: K (already rotated) and V of the step into the step's pool pages:
// token c of sequence b goes to row c % page_size of page block_table[b][c / page_size].
void launch_append_step_pages(const RopeStep& step, const __nv_bfloat16* k_rot,
                              const __nv_bfloat16* v, __nv_bfloat16* k_pages,
                              __nv_bfloat16* v_pages, const int* block_table,
                              const attention::PagedKvLayout& layout, cudaStream_t stream);
// Fused: q_rot = rope(q), and rope(k), v written straight into the pages, in one kernel.
void launch_rope_append_fused(const RopeStep& step, const __nv_bfloat16* q, const __nv_bfloat16* k,
                              const __nv_bfloat16* v, __nv_bfloat16* q_rot, __nv_bfloat16* k_pages,
                              __nv_bfloat16* v_pages, const int* block_table,
                              const attention::PagedKvLayout& layout, cudaStream_t stream);

}  // namespace aisp::ch13
