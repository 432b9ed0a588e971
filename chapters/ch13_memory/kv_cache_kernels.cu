// The ch13 KV-cache kernels (launchers and layouts: kv_cache_kernels.cuh). All of them only move
// data: memory- or launch-bound, ceiling HBM bandwidth. (The rope_kv_append kernels are in
// rope_kv_append_kernels.cu.)
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

}  // namespace aisp::ch13
