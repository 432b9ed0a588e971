// The layout kernels the disaggregated_prefill_decode pair runs between its library calls
// (disaggregation_kernels.cu, compiled once): they move a layer's projections between the
// token-major matrices cuBLAS reads and writes and the head-major tensors the attention kernels
// (chapter 18's flash FA2 for the prefill, its split-K decode kernel) and the KV cache use.
// Plain device pointers and a stream; every launch is checked by the caller (AISP_CHECK_LAUNCH()).
// Bytes are a few percent of a layer's (each element read once, written once or, for the
// prefill's repeated K/V, five times); no FLOPs. Ceiling: HBM bandwidth.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace aisp::ch15 {

// The attention shape both kernels are built for: head_dim 128, GQA with 4 query heads per KV
// head (chapter 18's decode kernel needs exactly that group).
struct AttentionLayout {
  int q_heads = 32;
  int kv_heads = 8;
  int head_dim = 128;
  __host__ __device__ int qkv_width() const {
    return (q_heads + 2 * kv_heads) * head_dim;
  }  // Q | K | V columns
  __host__ __device__ int model() const { return q_heads * head_dim; }
};

// A prefill layer's fused projection qkv ([tokens, qkv_width], token-major: Q | K | V) split
//   q            -> [q_heads, tokens, head_dim]     (flash FA2's Q)
//   k_rep, v_rep -> [q_heads, tokens, head_dim]     (K/V repeated for each query head of a
//                                                     group: FA2 takes equal head counts)
//   k_cache, v_cache -> [kv_heads, cache_rows, head_dim], rows 0 .. tokens-1 (the request's KV
//                       cache of this layer in the decode GPU's layout, so that the handoff is
//                       one contiguous copy; rows tokens .. cache_rows-1 are the decode's)
// tokens >= 1, cache_rows >= tokens, head_dim a multiple of 8, 16-byte aligned pointers, else
// std::invalid_argument.
void launch_split_prefill_qkv(const __nv_bfloat16* qkv, __nv_bfloat16* q, __nv_bfloat16* k_rep,
                              __nv_bfloat16* v_rep, __nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                              int tokens, int cache_rows, const AttentionLayout& layout,
                              cudaStream_t stream);

// o_heads [q_heads, tokens, head_dim] -> o_tokens [tokens, q_heads·head_dim] (the output
// projection's input).
void launch_merge_heads(const __nv_bfloat16* o_heads, __nv_bfloat16* o_tokens, int tokens,
                        const AttentionLayout& layout, cudaStream_t stream);

// A decode step's new key and value (columns model() .. qkv_width() of the one-token qkv row)
// written at row `position` of every KV head of the layer's cache, [kv_heads, cache_rows,
// head_dim] each.
void launch_append_decode_kv(const __nv_bfloat16* qkv, __nv_bfloat16* k_cache,
                             __nv_bfloat16* v_cache, int position, int cache_rows,
                             const AttentionLayout& layout, cudaStream_t stream);

}  // namespace aisp::ch15
