// Decode attention: one query token per (sequence, query head) against the sequence's KV cache,
// o = softmax(q·Kᵀ / sqrt(D)) · V, D 128, BF16 in and out, FP32 softmax and accumulation.
// Memory-bound: every cache row is read once per step and used for a handful of FLOPs, so the
// ceiling is HBM bandwidth on the K and V bytes (DecodeShape::kv_bytes).
//
// The arithmetic runs on tensor cores even though it is tiny: a warp takes 16 cache rows per step
// and computes the scores of up to 16 query heads with mma.sync m16n8k16 (the heads that share
// the KV head fill rows 0..group−1; the rest are zeros), so the SM spends its issue slots on
// loads, not on the dot products' shuffles. No shared memory is involved: each lane loads whole
// 16-byte pieces of K and V rows straight into registers.
//   Q·Kᵀ: the B operand wants, per lane, dims (2q, 2q+1) and (8+2q, 9+2q) of one key. A dot
//     product does not care in which order its dims are summed, so the kernel permutes them: lane
//     (g, q) loads dims 32c + 8q .. +7 of key g for c = 0..3 (one 16-byte load each, the four
//     lanes of a row reading 64 contiguous bytes), and Q's fragments are loaded with the same
//     permutation.
//   P·V: the B operand wants two consecutive keys of one dim per register, V rows hold one key's
//     dims. movmatrix .trans transposes each 8×8 block in registers across the warp; which dims
//     an n-tile covers is again a free permutation, chosen so that each lane ends up holding 8
//     consecutive output dims per c (dims 32c + 8q .. +7).
// The online softmax keeps scores in log2 units (scale·log2 e folded in), and rescales the
// accumulators only when some row's running max grew (__any_sync), which after the first steps
// is rare.
//
// Baseline (launch_decode_per_head): one block per (sequence, query head) walks the whole cache;
// its 4 warps take 16-row steps in turn and merge at the end. 1024 blocks, each as long as its
// sequence (8k–32k tokens), and the 4 query heads of a KV head read it 4 times.
// Split-K (launch_decode_split_k): one block per (sequence, KV head, 512-token chunk), serving all
// query heads of the KV head at once, writes an FP32 partial output and its log-sum-exp; a second
// kernel combines a sequence's chunks. ~10k blocks of equal size: every SM streams until the end.
// The same kernel reads a paged cache by looking up each 16-row step's page in the block table
// (copied to shared memory for its chunk when the block starts).
#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/attention_warp_fragments.cuh"
#include "../common/bf16_pack.cuh"
#include "../common/mma_sync.cuh"
#include "attention_kernels.cuh"

namespace aisp::ch18 {
namespace {

constexpr int kD = 128;
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kStep = 16;  // cache rows per warp step: two 8-key n-tiles, one 16-key k-step
constexpr int kMaxPagesPerChunk = kDecodeChunk / 16;
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ uint4 load_16(const __nv_bfloat16* p) {
  return *reinterpret_cast<const uint4*>(p);
}
__device__ __forceinline__ std::uint32_t word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

int max_chunks(const DecodeShape& shape) {
  return (shape.max_length + kDecodeChunk - 1) / kDecodeChunk;
}

// kHeads: query heads per block (1: the baseline's one head; group: all heads of a KV head).
// kSplit: write partial results for the combine kernel instead of the final output.
// kPaged: K and V are the paged pool (page_size rows per page), else contiguous caches.
template <int kHeads, bool kSplit, bool kPaged>
__global__ void __launch_bounds__(kThreads)
    decode_attention_kernel(DecodeShape shape, DecodeTensors t, int chunk, int chunks_per_row,
                            int page_size, int max_pages_per_sequence, float scale_log2) {
  static_assert(kHeads <= 8, "query heads of one block must fit the rows g < 8 of the m-tile");
  __shared__ float merged_o[kWarps][kHeads][kD];
  __shared__ float merged_max[kWarps][kHeads];
  __shared__ float merged_sum[kWarps][kHeads];
  __shared__ int chunk_pages[kPaged ? kMaxPagesPerChunk : 1];

  const int b = static_cast<int>(blockIdx.z);
  const int chunk_index = static_cast<int>(blockIdx.x);
  const int length = t.cache_lengths[b];
  const int t0 = chunk_index * chunk;
  if (t0 >= length)
    return;
  const int t1 = length < t0 + chunk ? length : t0 + chunk;
  const int kv_head =
      kHeads == 1 ? static_cast<int>(blockIdx.y) / shape.group() : static_cast<int>(blockIdx.y);
  const int first_q_head = kHeads == 1 ? static_cast<int>(blockIdx.y) : kv_head * kHeads;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane >> 2, q = lane & 3;

  if constexpr (kPaged) {
    const int first_page = t0 / page_size, pages = (t1 - t0 + page_size - 1) / page_size;
    for (int i = static_cast<int>(threadIdx.x); i < pages; i += kThreads)
      chunk_pages[i] = t.block_table[b * max_pages_per_sequence + first_page + i];
    __syncthreads();
  }
  // Row `token` of this (sequence, KV head) in K or V.
  const auto row = [&](const __nv_bfloat16* cache, int token) -> const __nv_bfloat16* {
    if constexpr (kPaged) {
      const int page = chunk_pages[(token - t0) / page_size];
      return cache + ((static_cast<long long>(page) * shape.kv_heads + kv_head) * page_size +
                      token % page_size) *
                         kD;
    } else {
      return cache +
             ((static_cast<long long>(b) * shape.kv_heads + kv_head) * shape.max_length + token) *
                 kD;
    }
  };

  // Q as A fragments (rows g < kHeads), dims permuted as K's: k-step 2c takes dims 32c+8q+0..3,
  // k-step 2c+1 dims 32c+8q+4..7 (a0 and a2 of each; rows 8..15, a1 and a3, are zero).
  std::uint32_t qa[kD / 16][2];
  {
    uint4 w[4] = {};
    if (g < kHeads) {
      const __nv_bfloat16* q_row =
          t.q + (static_cast<long long>(b) * shape.q_heads + first_q_head + g) * kD;
#pragma unroll
      for (int c = 0; c < 4; ++c)
        w[c] = load_16(q_row + 32 * c + 8 * q);
    }
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      qa[2 * c][0] = w[c].x;
      qa[2 * c][1] = w[c].y;
      qa[2 * c + 1][0] = w[c].z;
      qa[2 * c + 1][1] = w[c].w;
    }
  }

  float o[4][4][4] = {};  // [c][j][e]: head g, dims 32c + 8q + 2j + (e & 1) for e < 2
  float row_max = -INFINITY, row_sum = 0.0f;
  const int steps = (t1 - t0 + kStep - 1) / kStep;
  for (int step = warp; step < steps; step += kWarps) {
    const int base = t0 + step * kStep;
    const int key0 = base + g, key1 = base + 8 + g;  // this lane's two cache rows
    uint4 k0[4] = {}, k1[4] = {}, v0[4] = {}, v1[4] = {};
    if (key0 < t1) {
      const __nv_bfloat16* kr = row(t.k, key0);
      const __nv_bfloat16* vr = row(t.v, key0);
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        k0[c] = load_16(kr + 32 * c + 8 * q);
        v0[c] = load_16(vr + 32 * c + 8 * q);
      }
    }
    if (key1 < t1) {
      const __nv_bfloat16* kr = row(t.k, key1);
      const __nv_bfloat16* vr = row(t.v, key1);
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        k1[c] = load_16(kr + 32 * c + 8 * q);
        v1[c] = load_16(vr + 32 * c + 8 * q);
      }
    }
    // Scores of keys base..base+7 (s0) and base+8..base+15 (s1); lane (g, q) gets head g's
    // scores of keys 2q and 2q+1 of each in elements 0 and 1.
    float s0[4] = {}, s1[4] = {};
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const std::uint32_t a_lo[4] = {qa[2 * c][0], 0u, qa[2 * c][1], 0u};
      const std::uint32_t a_hi[4] = {qa[2 * c + 1][0], 0u, qa[2 * c + 1][1], 0u};
      common::mma_m16n8k16_bf16(s0, a_lo, k0[c].x, k0[c].y);
      common::mma_m16n8k16_bf16(s0, a_hi, k0[c].z, k0[c].w);
      common::mma_m16n8k16_bf16(s1, a_lo, k1[c].x, k1[c].y);
      common::mma_m16n8k16_bf16(s1, a_hi, k1[c].z, k1[c].w);
    }
    float x[4] = {s0[0] * scale_log2, s0[1] * scale_log2, s1[0] * scale_log2, s1[1] * scale_log2};
    const int keys[4] = {base + 2 * q, base + 2 * q + 1, base + 8 + 2 * q, base + 9 + 2 * q};
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (keys[i] >= t1)
        x[i] = -INFINITY;
    float step_max = fmaxf(fmaxf(x[0], x[1]), fmaxf(x[2], x[3]));
    step_max = fmaxf(step_max, __shfl_xor_sync(0xffffffffu, step_max, 1));
    step_max = fmaxf(step_max, __shfl_xor_sync(0xffffffffu, step_max, 2));
    const float new_max = fmaxf(row_max, step_max);  // finite: every step has a valid key
    const float correction = common::exp2_approx(row_max - new_max);
    row_max = new_max;
    float p[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      p[i] = common::exp2_approx(x[i] - new_max);
    row_sum = row_sum * correction + ((p[0] + p[1]) + (p[2] + p[3]));
    if (__any_sync(0xffffffffu, correction != 1.0f)) {
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          o[c][j][0] *= correction;
          o[c][j][1] *= correction;
        }
    }
    // P as the A fragment of one 16-key k-step: keys 2q, 2q+1 (a0) and 8+2q, 9+2q (a2).
    const std::uint32_t pa[4] = {common::pack_bf16x2(p[0], p[1]), 0u,
                                 common::pack_bf16x2(p[2], p[3]), 0u};
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        common::mma_m16n8k16_bf16(o[c][j], pa, common::movmatrix_trans(word(v0[c], j)),
                                  common::movmatrix_trans(word(v1[c], j)));
  }

  // Merge the 4 warps' partial softmax states of each head (rows g < kHeads hold real heads).
  row_sum += __shfl_xor_sync(0xffffffffu, row_sum, 1);
  row_sum += __shfl_xor_sync(0xffffffffu, row_sum, 2);
  if (g < kHeads) {
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        merged_o[warp][g][32 * c + 8 * q + 2 * j] = o[c][j][0];
        merged_o[warp][g][32 * c + 8 * q + 2 * j + 1] = o[c][j][1];
      }
    if (q == 0) {
      merged_max[warp][g] = row_max;
      merged_sum[warp][g] = row_sum;
    }
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kHeads * kD; i += kThreads) {
    const int h = i / kD, d = i % kD;
    float m = merged_max[0][h];
#pragma unroll
    for (int w = 1; w < kWarps; ++w)
      m = fmaxf(m, merged_max[w][h]);
    float sum = 0.0f, value = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float weight = common::exp2_approx(merged_max[w][h] - m);  // 0 for an idle warp
      sum += merged_sum[w][h] * weight;
      value += merged_o[w][h][d] * weight;
    }
    const long long out_row = static_cast<long long>(b) * shape.q_heads + first_q_head + h;
    if constexpr (kSplit) {
      const long long partial_row = out_row * chunks_per_row + chunk_index;
      t.partial_o[partial_row * kD + d] = value / sum;
      if (d == 0)
        t.partial_lse[partial_row] = m + __log2f(sum);
    } else {
      t.o[out_row * kD + d] = __float2bfloat16_rn(value / sum);
    }
  }
}

// One block per (query head, sequence): weights each chunk's partial output by 2^(lse − max).
__global__ void __launch_bounds__(kD)
    combine_decode_chunks(DecodeShape shape, DecodeTensors t, int chunk, int chunks_per_row) {
  const int b = static_cast<int>(blockIdx.y);
  const long long out_row = static_cast<long long>(b) * shape.q_heads + blockIdx.x;
  const int chunks = (t.cache_lengths[b] + chunk - 1) / chunk;
  const float* lse = t.partial_lse + out_row * chunks_per_row;
  const float* partial = t.partial_o + out_row * chunks_per_row * kD + threadIdx.x;
  float m = -INFINITY;
  for (int i = 0; i < chunks; ++i)
    m = fmaxf(m, lse[i]);
  float sum = 0.0f, value = 0.0f;
  for (int i = 0; i < chunks; ++i) {
    const float weight = common::exp2_approx(lse[i] - m);
    sum += weight;
    value += partial[static_cast<long long>(i) * kD] * weight;
  }
  t.o[out_row * kD + threadIdx.x] = __float2bfloat16_rn(value / sum);
}

void check_decode_shape(const DecodeShape& shape, int page_size) {
  if (shape.head_dim != kD || shape.q_heads % shape.kv_heads != 0 || shape.group() != 4 ||
      (page_size != 0 && (page_size % kStep != 0 || kDecodeChunk % page_size != 0)))
    throw std::invalid_argument(
        "decode attention: built for head_dim 128, 4 query heads per KV head and pages of a "
        "multiple of 16 tokens dividing 512 (got head_dim " +
        std::to_string(shape.head_dim) + ", group " + std::to_string(shape.group()) + ", page " +
        std::to_string(page_size) + ")");
}

}  // namespace

std::size_t decode_partial_rows(const DecodeShape& shape) {
  return static_cast<std::size_t>(shape.batch) * shape.q_heads * max_chunks(shape);
}
std::size_t decode_partial_floats(const DecodeShape& shape) {
  return decode_partial_rows(shape) * kD;
}

void launch_decode_per_head(const DecodeShape& shape, const DecodeTensors& t, cudaStream_t stream) {
  check_decode_shape(shape, 0);
  const dim3 grid(1, static_cast<unsigned>(shape.q_heads), static_cast<unsigned>(shape.batch));
  decode_attention_kernel<1, false, false><<<grid, kThreads, 0, stream>>>(
      shape, t, shape.max_length, 1, 0, 0, shape.softmax_scale() * kLog2e);
}

void launch_decode_split_k(const DecodeShape& shape, const DecodeTensors& t, int page_size,
                           cudaStream_t stream) {
  check_decode_shape(shape, page_size);
  const int chunks = max_chunks(shape);
  const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(shape.kv_heads),
                  static_cast<unsigned>(shape.batch));
  const float scale_log2 = shape.softmax_scale() * kLog2e;
  if (page_size == 0) {
    decode_attention_kernel<4, true, false>
        <<<grid, kThreads, 0, stream>>>(shape, t, kDecodeChunk, chunks, 0, 0, scale_log2);
  } else {
    const int max_pages = (shape.max_length + page_size - 1) / page_size;
    decode_attention_kernel<4, true, true><<<grid, kThreads, 0, stream>>>(
        shape, t, kDecodeChunk, chunks, page_size, max_pages, scale_log2);
  }
  launch_decode_combine(shape, t, stream);
}

void launch_decode_combine(const DecodeShape& shape, const DecodeTensors& t, cudaStream_t stream) {
  check_decode_shape(shape, 0);
  const dim3 grid(static_cast<unsigned>(shape.q_heads), static_cast<unsigned>(shape.batch));
  combine_decode_chunks<<<grid, kD, 0, stream>>>(shape, t, kDecodeChunk, max_chunks(shape));
}

}  // namespace aisp::ch18
