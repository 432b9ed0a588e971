// Launchers of the rope_kv_append kernels (rope_kv_append_kernels.cu): rotary position embedding
// of one prefill step's Q and K, and the step's K and V appended to the paged KV cache, either as
// two kernels (RoPE, then the append) or as one fused kernel. Harness-free: device pointers,
// sizes and a stream. Layouts: Q [sequences, tokens, q_heads, D], K and V [sequences, tokens,
// kv_heads, D], BF16; the paged pool as in chapters/common/attention_kv_cache.cuh
// ([pages, kv_heads, page_size, D], a block table [sequences, pages_per_sequence]).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "../common/attention_kv_cache.cuh"

namespace aisp::ch13 {

// Rotary position embedding (the "rotate half" form of GPT-NeoX/Llama, base 10000): for
// i < D/2, with angle = position · 10000^(−2i/D),
//   y[i] = x[i]·cos − x[i + D/2]·sin,  y[i + D/2] = x[i + D/2]·cos + x[i]·sin,
// in FP32 from BF16 inputs, rounded to BF16. All three kernels compute the angle and the rotation
// with the same device code, so the separate and fused paths agree to the bit.
// The kernels are written for D = 128 (head_dim) and 16-byte aligned tensors; the launchers reject
// other shapes with a message.
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
