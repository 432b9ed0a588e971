// The ch13 KV-cache kernels (launchers and layouts: kv_cache_kernels.cuh). All of them only move
// data (RoPE adds a few FLOPs per element): memory- or launch-bound, ceiling HBM bandwidth.
#include <cuda_bf16.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "kv_cache_kernels.cuh"

namespace aisp::ch13 {
namespace {

using attention::PagedKvLayout;

constexpr int kThreads = 256;
constexpr int kChunk = 8;  // BF16 elements per 16-byte copy

__device__ __forceinline__ uint4 load_chunk(const __nv_bfloat16* p) {
  return *reinterpret_cast<const uint4*>(p);
}
__device__ __forceinline__ void store_chunk(__nv_bfloat16* p, uint4 v) {
  *reinterpret_cast<uint4*>(p) = v;
}

unsigned blocks_for(long long items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

// Threads copy 16-byte chunks: K's rows, then V's.
__global__ void append_contiguous(KvPointers kv, int rows, int row_tokens, int token,
                                  int head_dim) {
  const int chunks_per_row = head_dim / kChunk;
  const long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (c >= 2LL * rows * chunks_per_row)
    return;
  const bool is_v = c >= static_cast<long long>(rows) * chunks_per_row;
  const long long cc = is_v ? c - static_cast<long long>(rows) * chunks_per_row : c;
  const long long row = cc / chunks_per_row, piece = cc % chunks_per_row;
  store_chunk((is_v ? kv.v_cache : kv.k_cache) + (row * row_tokens + token) * head_dim +
                  piece * kChunk,
              load_chunk((is_v ? kv.v_src : kv.k_src) + row * head_dim + piece * kChunk));
}

// Threads copy 16-byte chunks: K's rows, then V's.
__global__ void append_paged(KvPointers kv, const int* __restrict__ block_table, int sequences,
                             int token, PagedKvLayout layout) {
  const int chunks_per_row = layout.head_dim / kChunk;
  const long long per_tensor = static_cast<long long>(sequences) * layout.kv_heads * chunks_per_row;
  const long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (c >= 2 * per_tensor)
    return;
  const bool is_v = c >= per_tensor;
  const long long cc = is_v ? c - per_tensor : c;
  const int row = static_cast<int>(cc / chunks_per_row),
            piece = static_cast<int>(cc % chunks_per_row);
  const int b = row / layout.kv_heads, h = row % layout.kv_heads;
  const int page = block_table[b * layout.max_pages_per_sequence + token / layout.page_size];
  store_chunk((is_v ? kv.v_cache : kv.k_cache) + layout.offset(page, h, token % layout.page_size) +
                  piece * kChunk,
              load_chunk((is_v ? kv.v_src : kv.k_src) +
                         static_cast<long long>(row) * layout.head_dim + piece * kChunk));
}

__global__ void gather_pages(__nv_bfloat16* __restrict__ cache,
                             const __nv_bfloat16* __restrict__ pool,
                             const int* __restrict__ block_table, int sequences, int tokens,
                             PagedKvLayout layout) {
  const int chunks_per_row = layout.head_dim / kChunk;
  const long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long per_head = static_cast<long long>(tokens) * chunks_per_row;
  if (c >= static_cast<long long>(sequences) * layout.kv_heads * per_head)
    return;
  const int head_row = static_cast<int>(c / per_head);  // b · kv_heads + h
  const int t = static_cast<int>(c % per_head) / chunks_per_row;
  const int piece = static_cast<int>(c % chunks_per_row);
  const int b = head_row / layout.kv_heads, h = head_row % layout.kv_heads;
  const int page = block_table[b * layout.max_pages_per_sequence + t / layout.page_size];
  store_chunk(cache + (static_cast<long long>(head_row) * tokens + t) * layout.head_dim +
                  piece * kChunk,
              load_chunk(pool + layout.offset(page, h, t % layout.page_size) + piece * kChunk));
}

// One RoPE pair (i, i + D/2) of a row, FP32 math, the same in every kernel of this file.
__device__ __forceinline__ void rope_pair(const __nv_bfloat16* __restrict__ x,
                                          __nv_bfloat16* __restrict__ y, int i, int head_dim,
                                          int position) {
  constexpr float kLog2Base = 13.287712379549449f;  // log2(10000)
  const int half = head_dim / 2;
  const float inv_freq =
      exp2f(-(2.0f * static_cast<float>(i) / static_cast<float>(head_dim)) * kLog2Base);
  float s, c;
  sincosf(static_cast<float>(position) * inv_freq, &s, &c);
  const float a = __bfloat162float(x[i]), b = __bfloat162float(x[i + half]);
  y[i] = __float2bfloat16_rn(a * c - b * s);
  y[i + half] = __float2bfloat16_rn(b * c + a * s);
}

// Row r of a [sequences, tokens, heads, D] tensor: its sequence and token.
struct RowOf {
  int b, token;
};
__device__ __forceinline__ RowOf row_of(long long r, int tokens, int heads) {
  const long long per_sequence = static_cast<long long>(tokens) * heads;
  return {static_cast<int>(r / per_sequence), static_cast<int>((r % per_sequence) / heads)};
}

// The pool row of K/V row r ([sequences, tokens, kv_heads] order) of the step.
__device__ __forceinline__ long long page_row_offset(long long r, const RopeStep& step,
                                                     const int* block_table,
                                                     const PagedKvLayout& layout) {
  const RowOf at = row_of(r, step.tokens, step.kv_heads);
  const int h = static_cast<int>(r % step.kv_heads);
  const int page = block_table[at.b * layout.max_pages_per_sequence + at.token / layout.page_size];
  return layout.offset(page, h, at.token % layout.page_size);
}

// Threads (r, i): pair i of row r; rows of Q first, then rows of K.
__global__ void rope_qk(RopeStep step, const __nv_bfloat16* __restrict__ q,
                        const __nv_bfloat16* __restrict__ k, __nv_bfloat16* __restrict__ q_rot,
                        __nv_bfloat16* __restrict__ k_rot) {
  const int half = step.head_dim / 2;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long q_rows = static_cast<long long>(step.sequences) * step.tokens * step.q_heads;
  const long long k_rows = static_cast<long long>(step.sequences) * step.tokens * step.kv_heads;
  const long long r = t / half;
  const int i = static_cast<int>(t % half);
  if (r < q_rows) {
    const RowOf at = row_of(r, step.tokens, step.q_heads);
    rope_pair(q + r * step.head_dim, q_rot + r * step.head_dim, i, step.head_dim,
              step.first_position[at.b] + at.token);
  } else if (r < q_rows + k_rows) {
    const long long rk = r - q_rows;
    const RowOf at = row_of(rk, step.tokens, step.kv_heads);
    rope_pair(k + rk * step.head_dim, k_rot + rk * step.head_dim, i, step.head_dim,
              step.first_position[at.b] + at.token);
  }
}

// Threads copy 16-byte chunks; rows of K first, then rows of V.
__global__ void append_step_pages(RopeStep step, const __nv_bfloat16* __restrict__ k_rot,
                                  const __nv_bfloat16* __restrict__ v,
                                  __nv_bfloat16* __restrict__ k_pages,
                                  __nv_bfloat16* __restrict__ v_pages,
                                  const int* __restrict__ block_table, PagedKvLayout layout) {
  const int chunks_per_row = step.head_dim / kChunk;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long rows = static_cast<long long>(step.sequences) * step.tokens * step.kv_heads;
  const long long r = t / chunks_per_row;
  const int piece = static_cast<int>(t % chunks_per_row);
  if (r >= 2 * rows)
    return;
  const bool is_v = r >= rows;
  const long long row = is_v ? r - rows : r;
  const __nv_bfloat16* src = (is_v ? v : k_rot) + row * step.head_dim + piece * kChunk;
  __nv_bfloat16* dst =
      (is_v ? v_pages : k_pages) + page_row_offset(row, step, block_table, layout) + piece * kChunk;
  store_chunk(dst, load_chunk(src));
}

// Threads (r, i): rows of Q (RoPE to q_rot), of K (RoPE into the pages), of V (copied into the
// pages, two elements per thread).
__global__ void rope_append_fused(RopeStep step, const __nv_bfloat16* __restrict__ q,
                                  const __nv_bfloat16* __restrict__ k,
                                  const __nv_bfloat16* __restrict__ v,
                                  __nv_bfloat16* __restrict__ q_rot,
                                  __nv_bfloat16* __restrict__ k_pages,
                                  __nv_bfloat16* __restrict__ v_pages,
                                  const int* __restrict__ block_table, PagedKvLayout layout) {
  const int half = step.head_dim / 2;
  const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long q_rows = static_cast<long long>(step.sequences) * step.tokens * step.q_heads;
  const long long k_rows = static_cast<long long>(step.sequences) * step.tokens * step.kv_heads;
  const long long r = t / half;
  const int i = static_cast<int>(t % half);
  if (r < q_rows) {
    const RowOf at = row_of(r, step.tokens, step.q_heads);
    rope_pair(q + r * step.head_dim, q_rot + r * step.head_dim, i, step.head_dim,
              step.first_position[at.b] + at.token);
  } else if (r < q_rows + k_rows) {
    const long long rk = r - q_rows;
    const RowOf at = row_of(rk, step.tokens, step.kv_heads);
    rope_pair(k + rk * step.head_dim, k_pages + page_row_offset(rk, step, block_table, layout), i,
              step.head_dim, step.first_position[at.b] + at.token);
  } else if (r < q_rows + 2 * k_rows) {
    const long long rv = r - q_rows - k_rows;
    const long long dst = page_row_offset(rv, step, block_table, layout);
    reinterpret_cast<__nv_bfloat162*>(v_pages + dst)[i] =
        reinterpret_cast<const __nv_bfloat162*>(v + rv * step.head_dim)[i];
  }
}

void check_head_dim(int head_dim) {
  if (head_dim % kChunk != 0 || head_dim % 4 != 0)
    throw std::invalid_argument("KV-cache kernels: head_dim must be a multiple of 8, got " +
                                std::to_string(head_dim));
}

}  // namespace

void launch_append_contiguous(const KvPointers& kv, int rows, int row_tokens, int token,
                              int head_dim, cudaStream_t stream) {
  check_head_dim(head_dim);
  append_contiguous<<<blocks_for(2LL * rows * (head_dim / kChunk)), kThreads, 0, stream>>>(
      kv, rows, row_tokens, token, head_dim);
}

void launch_append_paged(const KvPointers& kv, const int* block_table, int sequences, int token,
                         const attention::PagedKvLayout& layout, cudaStream_t stream) {
  check_head_dim(layout.head_dim);
  append_paged<<<blocks_for(2LL * sequences * layout.kv_heads * (layout.head_dim / kChunk)),
                 kThreads, 0, stream>>>(kv, block_table, sequences, token, layout);
}

void launch_gather_pages(__nv_bfloat16* cache, const __nv_bfloat16* pool, const int* block_table,
                         int sequences, int tokens, const attention::PagedKvLayout& layout,
                         cudaStream_t stream) {
  check_head_dim(layout.head_dim);
  gather_pages<<<blocks_for(static_cast<long long>(sequences) * layout.kv_heads * tokens *
                            (layout.head_dim / kChunk)),
                 kThreads, 0, stream>>>(cache, pool, block_table, sequences, tokens, layout);
}

void launch_rope_qk(const RopeStep& step, const __nv_bfloat16* q, const __nv_bfloat16* k,
                    __nv_bfloat16* q_rot, __nv_bfloat16* k_rot, cudaStream_t stream) {
  check_head_dim(step.head_dim);
  const long long rows =
      static_cast<long long>(step.sequences) * step.tokens * (step.q_heads + step.kv_heads);
  rope_qk<<<blocks_for(rows * (step.head_dim / 2)), kThreads, 0, stream>>>(step, q, k, q_rot,
                                                                           k_rot);
}

void launch_append_step_pages(const RopeStep& step, const __nv_bfloat16* k_rot,
                              const __nv_bfloat16* v, __nv_bfloat16* k_pages,
                              __nv_bfloat16* v_pages, const int* block_table,
                              const attention::PagedKvLayout& layout, cudaStream_t stream) {
  check_head_dim(step.head_dim);
  const long long rows = 2LL * step.sequences * step.tokens * step.kv_heads;
  append_step_pages<<<blocks_for(rows * (step.head_dim / kChunk)), kThreads, 0, stream>>>(
      step, k_rot, v, k_pages, v_pages, block_table, layout);
}

void launch_rope_append_fused(const RopeStep& step, const __nv_bfloat16* q, const __nv_bfloat16* k,
                              const __nv_bfloat16* v, __nv_bfloat16* q_rot, __nv_bfloat16* k_pages,
                              __nv_bfloat16* v_pages, const int* block_table,
                              const attention::PagedKvLayout& layout, cudaStream_t stream) {
  check_head_dim(step.head_dim);
  const long long rows =
      static_cast<long long>(step.sequences) * step.tokens * (step.q_heads + 2 * step.kv_heads);
  rope_append_fused<<<blocks_for(rows * (step.head_dim / 2)), kThreads, 0, stream>>>(
      step, q, k, v, q_rot, k_pages, v_pages, block_table, layout);
}

}  // namespace aisp::ch13
