// The rope_kv_append kernels (launchers: rope_kv_append_kernels.cuh). All three only move data
// (RoPE adds 6 FLOPs per rotated pair): ceiling HBM bandwidth. The three are one loop
// (process_token) over a token's head rows, given different rows: RoPE kernel Q and K rows
// (rotated; K into k_rot), append kernel rotated-K and V rows (copied into their pages), fused
// kernel Q, K and V rows (K rotated into its pages, V copied). So the two-kernel baseline is
// written exactly as well as the fused kernel, and the pair measures the fusion alone.
//
// 64 threads per token (sequence b, step token c), 4 tokens per block of 256 threads: 512 blocks
// for the ch13 step's 2048 tokens, all resident at once on 132 SMs (4 blocks of 256 threads per
// SM fit at <= 64 registers: __launch_bounds__ below; ptxas at sm_90a: 63, 56 and 64 registers
// for the RoPE, append and fused kernels, no spills).
//  - A thread (t of its token's 64) owns chunk j = t % 8 of the pairs (i, i + 64), i in
//    [8j, 8j + 8): one 16-byte load of x[8j .. 8j+7] and one of x[64+8j .. 64+8j+7] per head
//    row, so rotate-half pairs sit in the same thread (no shuffles) and every access is 16
//    bytes. Eight consecutive threads cover a 256-byte row, so each warp-wide load or store
//    covers four 128-byte lines whole. A copied row (V, or the append kernel's rows) takes the
//    same path, unrotated. A thread's rows are t / 8 + 8n: 5 in the RoPE kernel, 6 in the fused
//    one, 2 in the append kernel.
//  - Angles: the rotation angle depends on the position and the dimension only, so a token's 40
//    rotated head rows share its 64 (cos, sin) pairs. Thread t computes dimension t's (one exp2f
//    for inv_freq, one sincosf, FP32, the same code in every kernel) into a 512-byte table in
//    shared memory, then a barrier: 64 sincosf per token, none in the append kernel. The first
//    loads are issued before, so the angles and the barrier overlap their latency.
//  - Loads are issued in batches of 3 rows (6 loads, 96 B per thread) before the batch's first
//    store: 1024 threads per SM × 96 B is ~96 KB in flight per SM, more than HBM's
//    latency-bandwidth product needs (~30-40 KB per SM).
//  - Page writes: a token's K (or V) row of head h goes to row c % 16 of page
//    block_table[b][c / 16], head h: one block-table read per thread (the same address for the
//    token's 64 threads), and each head row is 256 contiguous bytes in the pool, so the scattered
//    pages cost no coalescing.
//  - 32-bit index math per token (the first version divided 64-bit thread indices per element).
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
constexpr int kChunk = 8;                    // BF16 elements per 16-byte access
constexpr int kPairChunks = kHalf / kChunk;  // threads per head row in the RoPE kernels (8)
constexpr int kThreadsPerToken = 64;
constexpr int kTokensPerBlock = 4;
constexpr int kThreads = kThreadsPerToken * kTokensPerBlock;
constexpr int kRowStride = kThreadsPerToken / kPairChunks;  // rows between a thread's rows (8)
constexpr int kBatch = 3;           // head rows whose loads a thread issues before it stores any
constexpr int kMinBlocksPerSm = 4;  // the ch13 step's 512 blocks resident on 132 SMs: <= 64 regs
static_assert(kThreadsPerToken % kPairChunks == 0, "a thread keeps its chunk of every row");
static_assert(kThreadsPerToken == kHalf, "each thread of a token computes one dimension's angle");

// 16-byte global accesses. Explicitly global (ld.global.nc / st.global): the row pointers reach
// the loop through a struct, where the compiler no longer knows they point to global memory.
__device__ __forceinline__ uint4 load_chunk(const __nv_bfloat16* p) {
  return __ldg(reinterpret_cast<const uint4*>(p));
}
__device__ __forceinline__ void store_chunk(__nv_bfloat16* p, uint4 v) {
  __stwb(reinterpret_cast<uint4*>(p), v);
}

// (cos, sin) of the angles of one token's 64 dimensions, in shared memory: entry [e][j] is
// dimension i = 8j + e, so the 8 chunks' threads reading element e read 8 consecutive float2
// (one 64-byte span: no bank conflicts, the 4 rows of a warp broadcast).
struct TokenAngles {
  float2 cos_sin[kChunk][kPairChunks];
};
// Dimension i's angle at `position`, FP32, the same in every kernel: inv_freq =
// 2^(−(2i/D)·log2 10000), angle = position · inv_freq.
__device__ __forceinline__ float2 cos_sin_of(int position, int i) {
  constexpr float kLog2Base = 13.287712379549449f;  // log2(10000)
  const float inv_freq =
      exp2f(-(2.0f * static_cast<float>(i) / static_cast<float>(kHeadDim)) * kLog2Base);
  float s, c;
  sincosf(static_cast<float>(position) * inv_freq, &s, &c);
  return make_float2(c, s);
}

// One element pair in FP32 with explicit roundings (no contraction left to the compiler, so
// every kernel computes the same bits): lo·cos − hi·sin and hi·cos + lo·sin.
__device__ __forceinline__ void rotate_pair(float lo, float hi, float c, float s, float& lo_out,
                                            float& hi_out) {
  lo_out = __fmaf_rn(lo, c, -__fmul_rn(hi, s));
  hi_out = __fmaf_rn(hi, c, __fmul_rn(lo, s));
}

// Rotates chunk j of a row's two halves in place: lo = x[8j .. 8j+7], hi = x[64+8j .. 64+8j+7].
__device__ __forceinline__ void rotate_chunk(const TokenAngles& a, int j, uint4& lo, uint4& hi) {
  unsigned* lo_words = reinterpret_cast<unsigned*>(&lo);
  unsigned* hi_words = reinterpret_cast<unsigned*>(&hi);
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const float2 x = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&lo_words[w]));
    const float2 y = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&hi_words[w]));
    const float2 cs0 = a.cos_sin[2 * w][j], cs1 = a.cos_sin[2 * w + 1][j];
    float2 x_out, y_out;
    rotate_pair(x.x, y.x, cs0.x, cs0.y, x_out.x, y_out.x);
    rotate_pair(x.y, y.y, cs1.x, cs1.y, x_out.y, y_out.y);
    const __nv_bfloat162 x_bf = __float22bfloat162_rn(x_out);
    const __nv_bfloat162 y_bf = __float22bfloat162_rn(y_out);
    lo_words[w] = *reinterpret_cast<const unsigned*>(&x_bf);
    hi_words[w] = *reinterpret_cast<const unsigned*>(&y_bf);
  }
}

// The token this thread works on (the block's tokens take 64 threads each): its sequence, its
// index in the step, and its row in [sequences, tokens, ...] tensors (b · tokens + c); `valid`
// is false in the last block's threads past the step's last token.
struct TokenOfThread {
  int b, c;
  long long row;
  bool valid;
};
__device__ __forceinline__ TokenOfThread token_of_thread(const RopeStep& step) {
  const int index = static_cast<int>(blockIdx.x) * kTokensPerBlock +
                    static_cast<int>(threadIdx.x) / kThreadsPerToken;
  return {index / step.tokens, index % step.tokens, index, index < step.sequences * step.tokens};
}
// The thread's index among its token's 64 threads.
__device__ __forceinline__ int thread_in_token() {
  return static_cast<int>(threadIdx.x) % kThreadsPerToken;
}

// Where the token's K/V head rows go in the pool: head h at the returned offset + h · page_size ·
// D (one block-table read per thread, the same address for the token's 64 threads).
__device__ __forceinline__ long long page_row_offset(const TokenOfThread& at,
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
template <bool kRotates>
__device__ __forceinline__ void store_batch(const TokenRows& rows, int first, int j,
                                            const TokenAngles* angles, RowBatch& b) {
  const int total = rows.total();
#pragma unroll
  for (int n = 0; n < kBatch; ++n) {
    const int r = first + n * kRowStride;
    if (r < total) {
      const RowAt at = row_at(rows, r);
      if (kRotates && at.run.rotate)
        rotate_chunk(*angles, j, b.lo[n], b.hi[n]);
      __nv_bfloat16* dst = at.run.dst + at.h * at.run.dst_head_stride;
      store_chunk(dst + j * kChunk, b.lo[n]);
      store_chunk(dst + kHalf + j * kChunk, b.hi[n]);
    }
  }
}

// This thread's part of one token's work: chunk j = t % 8 of both halves of rows t / 8 + 8n
// (t = thread_in_token()), rotated where the run rotates. Where the kernel rotates, each of the
// token's 64 threads first computes the angle of dimension t at `position` into `angles` (one
// sincosf per dimension and token); a block-wide barrier follows, so every thread of the block
// calls this, `valid` or not. All the loads of a batch of kBatch rows are issued before the
// batch's first store, the first batch's before the angles (whose latency they then overlap).
template <bool kRotates>
__device__ __forceinline__ void process_token(const TokenRows& rows, bool valid, int position,
                                              TokenAngles* angles) {
  const int t = thread_in_token();
  const int j = t % kPairChunks;
  const int first = t / kPairChunks;
  RowBatch batch;
  if (valid)
    load_batch(rows, first, j, batch);
  if constexpr (kRotates) {
    if (valid)
      angles->cos_sin[t % kChunk][t / kChunk] = cos_sin_of(position, t);
    __syncthreads();
  }
  if (!valid)
    return;
  store_batch<kRotates>(rows, first, j, angles, batch);
  for (int next = first + kBatch * kRowStride; next < rows.total(); next += kBatch * kRowStride) {
    load_batch(rows, next, j, batch);
    store_batch<kRotates>(rows, next, j, angles, batch);
  }
}

// Separate path, kernel 1: the token's Q rows rotated into q_rot, its K rows into k_rot
// ([seq, tokens, kv_heads, D], contiguous).
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    rope_qk(RopeStep step, const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
            __nv_bfloat16* __restrict__ q_rot, __nv_bfloat16* __restrict__ k_rot) {
  __shared__ TokenAngles angles[kTokensPerBlock];
  const TokenOfThread at = token_of_thread(step);
  const long long q_row = at.row * step.q_heads * kHeadDim;
  const long long kv_row = at.row * step.kv_heads * kHeadDim;
  TokenRows rows;
  rows.run[0] = {q + q_row, q_rot + q_row, kHeadDim, step.q_heads, true};
  rows.run[1] = {k + kv_row, k_rot + kv_row, kHeadDim, step.kv_heads, true};
  const int position = at.valid ? step.first_position[at.b] + at.c : 0;
  process_token<true>(rows, at.valid, position, &angles[threadIdx.x / kThreadsPerToken]);
}

// Separate path, kernel 2: the token's rotated K rows and its V rows copied into their page
// rows (the same loop, nothing rotated: the angles are not computed).
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm)
    append_step_pages(RopeStep step, const __nv_bfloat16* __restrict__ k_rot,
                      const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ k_pages,
                      __nv_bfloat16* __restrict__ v_pages, const int* __restrict__ block_table,
                      PagedKvLayout layout) {
  const TokenOfThread at = token_of_thread(step);
  if (!at.valid)
    return;  // no barrier in this kernel: threads past the last token may leave
  const long long kv_row = at.row * step.kv_heads * kHeadDim;
  const long long page_row = page_row_offset(at, block_table, layout);
  const long long head_stride = static_cast<long long>(layout.page_size) * kHeadDim;
  TokenRows rows;
  rows.run[0] = {k_rot + kv_row, k_pages + page_row, head_stride, step.kv_heads, false};
  rows.run[1] = {v + kv_row, v_pages + page_row, head_stride, step.kv_heads, false};
  process_token<false>(rows, true, 0, nullptr);  // nothing rotated: no angles
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
  __shared__ TokenAngles angles[kTokensPerBlock];
  const TokenOfThread at = token_of_thread(step);
  const long long q_row = at.row * step.q_heads * kHeadDim;
  const long long kv_row = at.row * step.kv_heads * kHeadDim;
  const long long page_row = at.valid ? page_row_offset(at, block_table, layout) : 0;
  const long long head_stride = static_cast<long long>(layout.page_size) * kHeadDim;
  TokenRows rows;
  rows.run[0] = {q + q_row, q_rot + q_row, kHeadDim, step.q_heads, true};
  rows.run[1] = {k + kv_row, k_pages + page_row, head_stride, step.kv_heads, true};
  rows.run[2] = {v + kv_row, v_pages + page_row, head_stride, step.kv_heads, false};
  const int position = at.valid ? step.first_position[at.b] + at.c : 0;
  process_token<true>(rows, at.valid, position, &angles[threadIdx.x / kThreadsPerToken]);
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
  if (static_cast<long long>(step.sequences) * step.tokens > 0x7fffffffLL - kTokensPerBlock)
    throw std::invalid_argument("rope_kv_append kernels: " + std::to_string(step.sequences) +
                                " × " + std::to_string(step.tokens) +
                                " tokens exceed the 32-bit token index");
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
  const long long tokens = static_cast<long long>(step.sequences) * step.tokens;
  return static_cast<unsigned>((tokens + kTokensPerBlock - 1) / kTokensPerBlock);
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
