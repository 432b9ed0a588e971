// Layout kernels of the disaggregated_prefill_decode pair (disaggregation_kernels.cuh says what
// each does). Each thread moves one 16-byte piece (8 bf16 of one head's row): loads and stores
// stay whole 16-byte transactions, a warp covering 512 contiguous bytes of a row. No arithmetic.
#include "disaggregation_kernels.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace aisp::ch15 {
namespace {

constexpr int kVector = 8;  // bf16 per 16-byte piece
constexpr int kThreads = 256;

__device__ __forceinline__ void store_16(__nv_bfloat16* p, const uint4& v) {
  *reinterpret_cast<uint4*>(p) = v;
}
__device__ __forceinline__ uint4 load_16(const __nv_bfloat16* p) {
  return *reinterpret_cast<const uint4*>(p);
}

// One thread per 16-byte piece of qkv, piece index = token · (width / 8) + column / 8.
__global__ void __launch_bounds__(kThreads)
    split_prefill_qkv(const __nv_bfloat16* __restrict__ qkv, __nv_bfloat16* __restrict__ q,
                      __nv_bfloat16* __restrict__ k_rep, __nv_bfloat16* __restrict__ v_rep,
                      __nv_bfloat16* __restrict__ k_cache, __nv_bfloat16* __restrict__ v_cache,
                      int tokens, int cache_rows, AttentionLayout layout) {
  const int pieces_per_row = layout.qkv_width() / kVector;
  const long long piece = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (piece >= static_cast<long long>(tokens) * pieces_per_row)
    return;
  const int token = static_cast<int>(piece / pieces_per_row);
  const int column = static_cast<int>(piece % pieces_per_row) * kVector;
  const uint4 value = load_16(qkv + piece * kVector);
  const int d = column % layout.head_dim;
  const int head = column / layout.head_dim;  // over Q's heads, then K's, then V's
  const long long row = static_cast<long long>(tokens) * layout.head_dim;  // one head's elements
  const long long offset = static_cast<long long>(token) * layout.head_dim + d;
  if (head < layout.q_heads) {
    store_16(q + head * row + offset, value);
    return;
  }
  const bool is_key = head < layout.q_heads + layout.kv_heads;
  const int kv_head = head - layout.q_heads - (is_key ? 0 : layout.kv_heads);
  const long long cache_row = static_cast<long long>(cache_rows) * layout.head_dim;
  store_16((is_key ? k_cache : v_cache) + kv_head * cache_row + offset, value);
  const int group = layout.q_heads / layout.kv_heads;
  __nv_bfloat16* repeated = is_key ? k_rep : v_rep;
  for (int g = 0; g < group; ++g)
    store_16(repeated + (kv_head * group + g) * row + offset, value);
}

// One thread per 16-byte piece of o_tokens.
__global__ void __launch_bounds__(kThreads)
    merge_heads(const __nv_bfloat16* __restrict__ o_heads, __nv_bfloat16* __restrict__ o_tokens,
                int tokens, AttentionLayout layout) {
  const int pieces_per_row = layout.model() / kVector;
  const long long piece = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (piece >= static_cast<long long>(tokens) * pieces_per_row)
    return;
  const int token = static_cast<int>(piece / pieces_per_row);
  const int column = static_cast<int>(piece % pieces_per_row) * kVector;
  const int head = column / layout.head_dim, d = column % layout.head_dim;
  const long long source = (static_cast<long long>(head) * tokens + token) * layout.head_dim + d;
  store_16(o_tokens + piece * kVector, load_16(o_heads + source));
}

// One thread per 16-byte piece of the new K and V rows: 2 · kv_heads · head_dim / 8 threads.
__global__ void __launch_bounds__(kThreads)
    append_decode_kv(const __nv_bfloat16* __restrict__ qkv, __nv_bfloat16* __restrict__ k_cache,
                     __nv_bfloat16* __restrict__ v_cache, int position, int cache_rows,
                     AttentionLayout layout) {
  const int pieces_per_tensor = layout.kv_heads * layout.head_dim / kVector;
  const int piece = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  if (piece >= 2 * pieces_per_tensor)
    return;
  const bool is_key = piece < pieces_per_tensor;
  const int column = (piece % pieces_per_tensor) * kVector;  // within K (or V)
  const int kv_head = column / layout.head_dim, d = column % layout.head_dim;
  const uint4 value =
      load_16(qkv + layout.model() + (is_key ? 0 : pieces_per_tensor * kVector) + column);
  const long long destination =
      (static_cast<long long>(kv_head) * cache_rows + position) * layout.head_dim + d;
  store_16((is_key ? k_cache : v_cache) + destination, value);
}

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

void check_layout(const AttentionLayout& layout, const char* kernel) {
  if (layout.head_dim % kVector != 0 || layout.kv_heads < 1 ||
      layout.q_heads % layout.kv_heads != 0)
    throw std::invalid_argument(std::string(kernel) +
                                ": needs head_dim a multiple of 8 and q_heads a multiple of "
                                "kv_heads (got head_dim " +
                                std::to_string(layout.head_dim) + ", q_heads " +
                                std::to_string(layout.q_heads) + ", kv_heads " +
                                std::to_string(layout.kv_heads) + ")");
}

unsigned blocks_for(long long threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

}  // namespace

void launch_split_prefill_qkv(const __nv_bfloat16* qkv, __nv_bfloat16* q, __nv_bfloat16* k_rep,
                              __nv_bfloat16* v_rep, __nv_bfloat16* k_cache, __nv_bfloat16* v_cache,
                              int tokens, int cache_rows, const AttentionLayout& layout,
                              cudaStream_t stream) {
  check_layout(layout, "split_prefill_qkv");
  if (tokens < 1 || cache_rows < tokens || !aligned(qkv) || !aligned(q) || !aligned(k_rep) ||
      !aligned(v_rep) || !aligned(k_cache) || !aligned(v_cache))
    throw std::invalid_argument("split_prefill_qkv: needs tokens >= 1 and cache_rows >= tokens "
                                "(got " +
                                std::to_string(tokens) + ", " + std::to_string(cache_rows) +
                                ") and 16-byte aligned tensors");
  const long long pieces = static_cast<long long>(tokens) * layout.qkv_width() / kVector;
  split_prefill_qkv<<<blocks_for(pieces), kThreads, 0, stream>>>(
      qkv, q, k_rep, v_rep, k_cache, v_cache, tokens, cache_rows, layout);
}

void launch_merge_heads(const __nv_bfloat16* o_heads, __nv_bfloat16* o_tokens, int tokens,
                        const AttentionLayout& layout, cudaStream_t stream) {
  check_layout(layout, "merge_heads");
  if (tokens < 1 || !aligned(o_heads) || !aligned(o_tokens))
    throw std::invalid_argument("merge_heads: needs tokens >= 1 (got " + std::to_string(tokens) +
                                ") and 16-byte aligned tensors");
  const long long pieces = static_cast<long long>(tokens) * layout.model() / kVector;
  merge_heads<<<blocks_for(pieces), kThreads, 0, stream>>>(o_heads, o_tokens, tokens, layout);
}

void launch_append_decode_kv(const __nv_bfloat16* qkv, __nv_bfloat16* k_cache,
                             __nv_bfloat16* v_cache, int position, int cache_rows,
                             const AttentionLayout& layout, cudaStream_t stream) {
  check_layout(layout, "append_decode_kv");
  if (position < 0 || position >= cache_rows || !aligned(qkv) || !aligned(k_cache) ||
      !aligned(v_cache))
    throw std::invalid_argument("append_decode_kv: position " + std::to_string(position) +
                                " outside the cache's " + std::to_string(cache_rows) +
                                " rows, or tensors not 16-byte aligned");
  const long long pieces = 2LL * layout.kv_heads * layout.head_dim / kVector;
  append_decode_kv<<<blocks_for(pieces), kThreads, 0, stream>>>(qkv, k_cache, v_cache, position,
                                                                cache_rows, layout);
}

}  // namespace aisp::ch15
