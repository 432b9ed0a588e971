// The paged KV-cache layout's host helpers and setup-time copy kernel (attention_kv_cache.cuh).
#include "attention_kv_cache.cuh"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace aisp::attention {
namespace {

// One block per (page slot of a sequence, KV head, sequence): page_size · head_dim values in
// 16-byte chunks, zeros past the sequence's end.
__global__ void copy_cache_into_pages(const __nv_bfloat16* __restrict__ cache,
                                      __nv_bfloat16* __restrict__ pool,
                                      const int* __restrict__ block_table, DecodeShape shape,
                                      PagedKvLayout layout) {
  const int slot = static_cast<int>(blockIdx.x), kv_head = static_cast<int>(blockIdx.y);
  const int b = static_cast<int>(blockIdx.z);
  const int length = shape.cache_length(b);
  const int first_token = slot * layout.page_size;
  if (first_token >= length)
    return;
  const int page = block_table[b * layout.max_pages_per_sequence + slot];
  const int chunks_per_row = layout.head_dim / 8;
  const __nv_bfloat16* src =
      cache +
      ((static_cast<long long>(b) * shape.kv_heads + kv_head) * shape.max_length + first_token) *
          layout.head_dim;
  __nv_bfloat16* dst = pool + layout.offset(page, kv_head, 0);
  for (int c = static_cast<int>(threadIdx.x); c < layout.page_size * chunks_per_row;
       c += static_cast<int>(blockDim.x)) {
    const int row = c / chunks_per_row;
    uint4 value = make_uint4(0, 0, 0, 0);
    if (first_token + row < length)
      value = reinterpret_cast<const uint4*>(src)[c];
    reinterpret_cast<uint4*>(dst)[c] = value;
  }
}

}  // namespace

PagedKvLayout paged_layout(const DecodeShape& shape, int page_size) {
  if (page_size <= 0 || page_size % 16 != 0)
    throw std::invalid_argument("paged KV cache: page size must be a positive multiple of 16, "
                                "got " +
                                std::to_string(page_size));
  PagedKvLayout layout;
  layout.page_size = page_size;
  layout.kv_heads = shape.kv_heads;
  layout.head_dim = shape.head_dim;
  layout.max_pages_per_sequence = (shape.max_length + page_size - 1) / page_size;
  long long pages = 0;
  for (int b = 0; b < shape.batch; ++b)
    pages += (shape.cache_length(b) + page_size - 1) / page_size;
  layout.num_pages = static_cast<int>(pages);
  return layout;
}

std::vector<int> scattered_block_table(const DecodeShape& shape, const PagedKvLayout& layout,
                                       std::uint64_t seed) {
  std::vector<int> pool_order(static_cast<std::size_t>(layout.num_pages));
  std::iota(pool_order.begin(), pool_order.end(), 0);
  std::mt19937_64 random(seed);
  std::shuffle(pool_order.begin(), pool_order.end(), random);
  std::vector<int> table(static_cast<std::size_t>(shape.batch) * layout.max_pages_per_sequence, -1);
  std::size_t next = 0;
  for (int b = 0; b < shape.batch; ++b) {
    const int pages = (shape.cache_length(b) + layout.page_size - 1) / layout.page_size;
    for (int p = 0; p < pages; ++p)
      table[static_cast<std::size_t>(b) * layout.max_pages_per_sequence + p] = pool_order[next++];
  }
  return table;
}

void launch_copy_cache_into_pages(const __nv_bfloat16* cache, __nv_bfloat16* pool,
                                  const int* block_table, const DecodeShape& shape,
                                  const PagedKvLayout& layout, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(layout.max_pages_per_sequence),
                  static_cast<unsigned>(shape.kv_heads), static_cast<unsigned>(shape.batch));
  copy_cache_into_pages<<<grid, 256, 0, stream>>>(cache, pool, block_table, shape, layout);
}

}  // namespace aisp::attention
