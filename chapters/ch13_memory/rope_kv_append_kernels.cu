// The rope_kv_append kernels (launchers: rope_kv_append_kernels.cuh). All three only move data
// (RoPE adds 6 FLOPs per rotated pair): ceiling HBM bandwidth. The three are one loop
// (process_token) over a token's head rows, given different rows: RoPE kernel Q and K rows
// (rotated; K into k_rot), append kernel rotated-K and V rows (copied into their pages), fused
// kernel Q, K and V rows (K rotated into its pages, V copied). So the two-kernel baseline is
// written exactly as well as the fused kernel, and the pair measures the fusion alone.
//
// One block of 64 threads per token (sequence b, step token c): 2048 blocks for the ch13 step,
// all resident at once on 132 SMs (16 blocks of 64 threads per SM fit at <= 64 registers:
// __launch_bounds__ below; ptxas: 64, 54 and 64 registers for the RoPE, append and fused kernels
// at sm_90a, no spills). Why per token: the rotation angle depends on the position and the
// dimension only, so the token's 32 Q and 8 K head rows share one set of 64 (cos, sin) pairs.
//  - A thread owns chunk j = threadIdx.x % 8 of the pairs (i, i + 64), i in [8j, 8j + 8): one
//    16-byte load of x[8j .. 8j+7] and one of x[64+8j .. 64+8j+7] per head row, so rotate-half
//    pairs sit in the same thread (no shuffles) and every access is 16 bytes. Eight consecutive
//    threads cover a 256-byte row, so each warp-wide load or store covers four 128-byte lines
//    whole. A copied row (V, or the append kernel's rows) takes the same path, unrotated.
//  - A thread's rows are threadIdx.x / 8 + 8n (5 in the RoPE kernel, 6 in the fused one, 2 in
//    the append kernel), all with the same chunk j: its 8 angles are computed once, in
//    registers, while its first loads are in flight (8 exp2f + 8 sincosf, FP32, the same code in
//    every kernel; the append kernel computes none). That is 512 sincosf per block for 20-24 KiB
//    moved, under one instruction per byte, where an SM can issue ~7-8 thread-instructions per
//    byte while HBM streams at full speed. (A table of inv_freq would save only the 8 exp2f; the
//    sincosf per dimension and position is the cost, and it is already shared by the token's 40
//    rotated rows.)
//  - Loads are issued in batches of 3 rows (6 loads, 96 B per thread) before the batch's first
//    store: ~1000 threads per SM × 96 B is ~96 KB in flight per SM, several times what HBM's
//    latency-bandwidth product needs (~30-40 KB per SM).
//  - Page writes: a token's K (or V) row of head h goes to row c % 16 of page
//    block_table[b][c / 16], head h: one block-table read per block, and each head row is 256
//    contiguous bytes in the pool, so the scattered pages cost no coalescing.
//  - 32-bit index math per block (the old kernels divided 64-bit thread indices per element).
#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "rope_kv_append_kernels.cuh"

namespace aisp::ch13 {
namespace {

using attention::PagedKvLayout;

constexpr int kHeadDim = 128;
constexpr int kHalf = kHeadDim / 2;
constexpr int kChunk = 8;                           // BF16 elements per 16-byte access
constexpr int kPairChunks = kHalf / kChunk;         // threads per head row in the RoPE kernels (8)
constexpr int kThreads = 64;                        // one block per token
constexpr int kRowStride = kThreads / kPairChunks;  // head rows between a thread's rows (8)
constexpr int kBatch = 3;            // head rows whose loads a thread issues before it stores any
constexpr int kMinBlocksPerSm = 16;  // 2048 token blocks resident on 132 SMs: <= 64 registers
static_assert(kThreads % kPairChunks == 0, "a thread keeps its pair chunk (and its angles)");

// 16-byte global accesses. Explicitly global (ld.global.nc / st.global): the row pointers reach
// the loop through a struct, where the compiler no longer knows they point to global memory.
__device__ __forceinline__ uint4 load_chunk(const __nv_bfloat16* p) {
  return __ldg(reinterpret_cast<const uint4*>(p));
}
__device__ __forceinline__ void store_chunk(__nv_bfloat16* p, uint4 v) {
  __stwb(reinterpret_cast<uint4*>(p), v);
}

// cos and sin of the angles of dimensions 8j .. 8j+7 at one position. FP32, the same in every
// kernel: inv_freq = 2^(−(2i/D)·log2 10000), angle = position · inv_freq.
struct ChunkAngles {
  float cos[kChunk];
  float sin[kChunk];
};
__device__ __forceinline__ ChunkAngles chunk_angles(int position, int chunk) {
  constexpr float kLog2Base = 13.287712379549449f;  // log2(10000)
  ChunkAngles a;
#pragma unroll
  for (int e = 0; e < kChunk; ++e) {
    const int i = chunk * kChunk + e;
    const float inv_freq =
        exp2f(-(2.0f * static_cast<float>(i) / static_cast<float>(kHeadDim)) * kLog2Base);
    sincosf(static_cast<float>(position) * inv_freq, &a.sin[e], &a.cos[e]);
  }
  return a;
}

// One element pair in FP32 with explicit roundings (no contraction left to the compiler, so
// every kernel computes the same bits): lo·cos − hi·sin and hi·cos + lo·sin.
__device__ __forceinline__ void rotate_pair(float lo, float hi, float c, float s, float& lo_out,
                                            float& hi_out) {
  lo_out = __fmaf_rn(lo, c, -__fmul_rn(hi, s));
  hi_out = __fmaf_rn(hi, c, __fmul_rn(lo, s));
}

// Rotates chunk j of a row's two halves in place: lo = x[8j .. 8j+7], hi = x[64+8j .. 64+8j+7].
__device__ __forceinline__ void rotate_chunk(const ChunkAngles& a, uint4& lo, uint4& hi) {
  unsigned* lo_words = reinterpret_cast<unsigned*>(&lo);
  unsigned* hi_words = reinterpret_cast<unsigned*>(&hi);
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const float2 x = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&lo_words[w]));
    const float2 y = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&hi_words[w]));
    float2 x_out, y_out;
    rotate_pair(x.x, y.x, a.cos[2 * w], a.sin[2 * w], x_out.x, y_out.x);
    rotate_pair(x.y, y.y, a.cos[2 * w + 1], a.sin[2 * w + 1], x_out.y, y_out.y);
    const __nv_bfloat162 x_bf = __float22bfloat162_rn(x_out);
    const __nv_bfloat162 y_bf = __float22bfloat162_rn(y_out);
    lo_words[w] = *reinterpret_cast<const unsigned*>(&x_bf);
    hi_words[w] = *reinterpret_cast<const unsigned*>(&y_bf);
  }
}

// The token this block handles: its sequence, its index in the step, and its row in
// [sequences, tokens, ...] tensors (b · tokens + c).
struct TokenOfBlock {
  int b, c;
  long long row;
};
__device__ __forceinline__ TokenOfBlock token_of_block(const RopeStep& step) {
  const int index = static_cast<int>(blockIdx.x);
  return {index / step.tokens, index % step.tokens, index};
}

// Where the token's K/V head rows go in the pool: head h at the returned offset + h · page_size ·
// D (one block-table read per block).
__device__ __forceinline__ long long page_row_offset(const TokenOfBlock& at,
                                                     const int* __restrict__ block_table,
                                                     const PagedKvLayout& layout) {
  const int page = block_table[at.b * layout.max_pages_per_sequence + at.c / layout.page_size];
  return layout.offset(page, 0, at.c % layout.page_size);
}

// A run of the token's head rows that go the same way: `rows` rows of D elements, contiguous
// at `src`, written to dst + h · dst_head_stride, rotated or copied as they are.
struct RowRun {
  const __nv_bfloat16* src = nullptr;
  __nv_bfloat16* dst = nullptr;
  long long dst_head_stride = 0;
  int rows = 0;
  bool rotate = false;
};
// The token's work: up to three runs, e.g. Q rows (rotated into q_rot), K rows (rotated into
// their pages) and V rows (copied into their pages), numbered one after the other.
constexpr int kMaxRuns = 3;
struct TokenRows {
  RowRun run[kMaxRuns];
  __device__ int total() const { return run[0].rows + run[1].rows + run[2].rows; }
};

// Row r of the token's work: its run and its index in that run.
struct RowAt {
  RowRun run;
  int h;
};
__device__ __forceinline__ RowAt row_at(const TokenRows& rows, int r) {
  if (r < rows.run[0].rows)
    return {rows.run[0], r};
  r -= rows.run[0].rows;
  if (r < rows.run[1].rows)
    return {rows.run[1], r};
  return {rows.run[2], r - rows.run[1].rows};
}

// A batch of this thread's rows: rows first + 8n, n < kBatch, chunk j of both halves.
struct RowBatch {
  uint4 lo[kBatch], hi[kBatch];
};
__device__ __forceinline__ void load_batch(const TokenRows& rows, int first, int j, RowBatch& b) {
  const int total = rows.total();
#pragma unroll
  for (int n = 0; n < kBatch; ++n) {
    const int r = first + n * kRowStride;
    if (r < total) {
      const RowAt at = row_at(rows, r);
      const __nv_bfloat16* src = at.run.src + static_cast<long long>(at.h) * kHeadDim;
      b.lo[n] = load_chunk(src + j * kChunk);
      b.hi[n] = load_chunk(src + kHalf + j * kChunk);
    }
  }
}
__device__ __forceinline__ void store_batch(const TokenRows& rows, int first, int j,
                                            const ChunkAngles& a, RowBatch& b) {
  const int total = rows.total();
#pragma unroll
  for (int n = 0; n < kBatch; ++n) {
    const int r = first + n * kRowStride;
    if (r < total) {
      const RowAt at = row_at(rows, r);
      if (at.run.rotate)
        rotate_chunk(a, b.lo[n], b.hi[n]);
      __nv_bfloat16* dst = at.run.dst + at.h * at.run.dst_head_stride;
      store_chunk(dst + j * kChunk, b.lo[n]);
      store_chunk(dst + kHalf + j * kChunk, b.hi[n]);
    }
  }
}

// This thread's part of one token's work: chunk j = threadIdx.x % 8 of both halves of rows
// threadIdx.x / 8 + 8n, rotated where the run rotates with the angles of chunk j at `position`.
// All the loads of a batch of kBatch rows are issued before the batch's first store, and the
// first batch's loads before the angles are computed (the sincosf then overlap their latency).
template <bool kRotates>
__device__ __forceinline__ void process_token(const TokenRows& rows, int position) {
  const int j = static_cast<int>(threadIdx.x) % kPairChunks;
  const int first = static_cast<int>(threadIdx.x) / kPairChunks;
  RowBatch batch;
  load_batch(rows, first, j, batch);
  const ChunkAngles a = kRotates ? chunk_angles(position, j) : ChunkAngles{};
  store_batch(rows, first, j, a, batch);
  for (int next = first + kBatch * kRowStride; next < rows.total(); next += kBatch * kRowStride) {
    load_batch(rows, next, j, batch);
    store_batch(rows, next, j, a, batch);
  }
}

// Separate path, kernel 1: the token's Q rows rotated into q_rot, its K rows into k_rot
// ([seq, tokens, kv_heads, D], contiguous).
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    rope_qk(RopeStep step, const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
            __nv_bfloat16* __restrict__ q_rot, __nv_bfloat16* __restrict__ k_rot) {
  const TokenOfBlock at = token_of_block(step);
  const long long q_row = at.row * step.q_heads * kHeadDim;
  const long long kv_row = at.row * step.kv_heads * kHeadDim;
  TokenRows rows;
  rows.run[0] = {q + q_row, q_rot + q_row, kHeadDim, step.q_heads, true};
  rows.run[1] = {k + kv_row, k_rot + kv_row, kHeadDim, step.kv_heads, true};
  process_token<true>(rows, step.first_position[at.b] + at.c);
}

// Separate path, kernel 2: the token's rotated K rows and its V rows copied into their page
// rows (the same loop, nothing rotated: the angles are not computed).
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    append_step_pages(RopeStep step, const __nv_bfloat16* __restrict__ k_rot,
                      const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ k_pages,
                      __nv_bfloat16* __restrict__ v_pages, const int* __restrict__ block_table,
                      PagedKvLayout layout) {
  const TokenOfBlock at = token_of_block(step);
  const long long kv_row = at.row * step.kv_heads * kHeadDim;
  const long long page_row = page_row_offset(at, block_table, layout);
  const long long head_stride = static_cast<long long>(layout.page_size) * kHeadDim;
  TokenRows rows;
  rows.run[0] = {k_rot + kv_row, k_pages + page_row, head_stride, step.kv_heads, false};
  rows.run[1] = {v + kv_row, v_pages + page_row, head_stride, step.kv_heads, false};
  process_token<false>(rows, 0);
}

// Fused: the token's Q rows rotated into q_rot, its K rows rotated straight into their page
// rows, its V rows copied into theirs. What differs from the two kernels above: K's destination
// is the page row (k_rot never exists) and V rides in the same launch; the loop, the angles and
// the rotation are the same code.
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    rope_append_fused(RopeStep step, const __nv_bfloat16* __restrict__ q,
                      const __nv_bfloat16* __restrict__ k, const __nv_bfloat16* __restrict__ v,
                      __nv_bfloat16* __restrict__ q_rot, __nv_bfloat16* __restrict__ k_pages,
                      __nv_bfloat16* __restrict__ v_pages, const int* __restrict__ block_table,
                      PagedKvLayout layout) {
  const TokenOfBlock at = token_of_block(step);
  const long long q_row = at.row * step.q_heads * kHeadDim;
  const long long kv_row = at.row * step.kv_heads * kHeadDim;
  const long long page_row = page_row_offset(at, block_table, layout);
  const long long head_stride = static_cast<long long>(layout.page_size) * kHeadDim;
  TokenRows rows;
  rows.run[0] = {q + q_row, q_rot + q_row, kHeadDim, step.q_heads, true};
  rows.run[1] = {k + kv_row, k_pages + page_row, head_stride, step.kv_heads, true};
  rows.run[2] = {v + kv_row, v_pages + page_row, head_stride, step.kv_heads, false};
  process_token<true>(rows, step.first_position[at.b] + at.c);
}

void check_aligned(const void* p, const char* name) {
  if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
    throw std::invalid_argument(std::string("rope_kv_append kernels: ") + name +
                                " must be 16-byte aligned (the kernels use 16-byte accesses)");
}

void check_step(const RopeStep& step) {
  if (step.head_dim != kHeadDim)
    throw std::invalid_argument(
        "rope_kv_append kernels: written for head_dim " + std::to_string(kHeadDim) + ", got " +
        std::to_string(step.head_dim) + " (change kHeadDim in rope_kv_append_kernels.cu)");
  if (step.sequences <= 0 || step.tokens <= 0 || step.q_heads < 0 || step.kv_heads <= 0)
    throw std::invalid_argument("rope_kv_append kernels: empty step (sequences " +
                                std::to_string(step.sequences) + ", tokens " +
                                std::to_string(step.tokens) + ", kv_heads " +
                                std::to_string(step.kv_heads) + ")");
  if (static_cast<long long>(step.sequences) * step.tokens > 0x7fffffffLL)
    throw std::invalid_argument("rope_kv_append kernels: " + std::to_string(step.sequences) +
                                " × " + std::to_string(step.tokens) +
                                " tokens exceed one block per token (2^31 - 1 blocks)");
  if (step.first_position == nullptr)
    throw std::invalid_argument("rope_kv_append kernels: first_position is null");
}

void check_pages(const RopeStep& step, const PagedKvLayout& layout) {
  if (layout.head_dim != step.head_dim || layout.kv_heads != step.kv_heads)
    throw std::invalid_argument(
        "rope_kv_append kernels: the pool layout (kv_heads " + std::to_string(layout.kv_heads) +
        ", head_dim " + std::to_string(layout.head_dim) + ") does not match the step (kv_heads " +
        std::to_string(step.kv_heads) + ", head_dim " + std::to_string(step.head_dim) + ")");
  if (layout.page_size <= 0 ||
      static_cast<long long>(layout.max_pages_per_sequence) * layout.page_size < step.tokens)
    throw std::invalid_argument("rope_kv_append kernels: the block table's " +
                                std::to_string(layout.max_pages_per_sequence) + " pages of " +
                                std::to_string(layout.page_size) +
                                " tokens cannot hold the step's " + std::to_string(step.tokens) +
                                " tokens per sequence");
}

unsigned token_blocks(const RopeStep& step) {
  return static_cast<unsigned>(step.sequences) * static_cast<unsigned>(step.tokens);
}

}  // namespace

void launch_rope_qk(const RopeStep& step, const __nv_bfloat16* q, const __nv_bfloat16* k,
                    __nv_bfloat16* q_rot, __nv_bfloat16* k_rot, cudaStream_t stream) {
  check_step(step);
  check_aligned(q, "q");
  check_aligned(k, "k");
  check_aligned(q_rot, "q_rot");
  check_aligned(k_rot, "k_rot");
  rope_qk<<<token_blocks(step), kThreads, 0, stream>>>(step, q, k, q_rot, k_rot);
}

void launch_append_step_pages(const RopeStep& step, const __nv_bfloat16* k_rot,
                              const __nv_bfloat16* v, __nv_bfloat16* k_pages,
                              __nv_bfloat16* v_pages, const int* block_table,
                              const attention::PagedKvLayout& layout, cudaStream_t stream) {
  check_step(step);
  check_pages(step, layout);
  check_aligned(k_rot, "k_rot");
  check_aligned(v, "v");
  check_aligned(k_pages, "k_pages");
  check_aligned(v_pages, "v_pages");
  append_step_pages<<<token_blocks(step), kThreads, 0, stream>>>(step, k_rot, v, k_pages, v_pages,
                                                                 block_table, layout);
}

void launch_rope_append_fused(const RopeStep& step, const __nv_bfloat16* q, const __nv_bfloat16* k,
                              const __nv_bfloat16* v, __nv_bfloat16* q_rot, __nv_bfloat16* k_pages,
                              __nv_bfloat16* v_pages, const int* block_table,
                              const attention::PagedKvLayout& layout, cudaStream_t stream) {
  check_step(step);
  check_pages(step, layout);
  check_aligned(q, "q");
  check_aligned(k, "k");
  check_aligned(v, "v");
  check_aligned(q_rot, "q_rot");
  check_aligned(k_pages, "k_pages");
  check_aligned(v_pages, "v_pages");
  rope_append_fused<<<token_blocks(step), kThreads, 0, stream>>>(step, q, k, v, q_rot, k_pages,
                                                                 v_pages, block_table, layout);
}

}  // namespace aisp::ch13
