// Flash attention, FlashAttention-3 style (Hopper, sm_90a): wgmma + TMA + warp specialization.
// What changed vs the mma.sync rungs:
//   - wgmma: a warpgroup (4 warps) multiplies a 64-row tile by a whole 128-key tile in one
//     asynchronous instruction stream, operands read by the tensor cores straight from shared
//     memory (Q and K, K-major) or from registers (P): no ldmatrix, full-rate tensor cores.
//   - warp specialization: warpgroup 0 is the producer (one thread issues every TMA copy; the
//     group gives its registers away with setmaxnreg), warpgroups 1 and 2 are consumers with 64
//     query rows each (kBlockM 128) and 240 registers per thread.
//   - a K ring and a V ring of 2 stages each, full/empty mbarriers between producer and consumers.
//   - intra-warpgroup overlap: a consumer issues S_j = Q·K_jᵀ and O += P_{j-1}·V_{j-1} back to
//     back, waits only for S_j, and computes the row maxima of tile j while the tensor cores still
//     run the P·V of tile j − 1; the exponentials follow, and O is rescaled, once that product has
//     retired. Where that wait lands is pinned (pin, in the kernel): left to ptxas it moved
//     between builds, and the D 128 kernel's time with it by 20%.
//   - ping-pong (kPingPong, the D 64 rung `attention_forward_d64_fa3_pingpong`): the two consumer
//     warpgroups take turns issuing their GEMMs, ordered by two named barriers, so that one
//     warpgroup's softmax runs while the other's Q·Kᵀ and P·V occupy the tensor cores
//     (FlashAttention-3's inter-warpgroup overlap; see issue_turn below).
//   - three consumer warpgroups (kConsumers 3, the D 64 rungs `attention_forward_d64_fa3_wg3*`):
//     192 query rows per block, 512 threads; with SoftmaxForm::tensor_sums, the row sums of P as
//     8 more columns of P·V against ones.
//   - causal pairs (Schedule::causal_pairs, `attention_causal`): a block of threads computes a
//     head's query blocks Q − 1 − x and x in turn (equal work per pair), one block per SM walking
//     the pairs; Q double-buffered, the K/V rings running on from one query block to the next.
// Layouts: Q, K, V, O as [B, H, S, D] (this chapter's problems) or token-major, read straight out
// of a fused QKV projection's output (ch14's transformer block); FlashHeadLayout
// (attention_kernels.cuh) says where a head's rows and columns are, the kernel is the same.
// Per consumer thread: S (64×128 FP32: 64 registers), O (64×D: 64 at D 128), P (BF16: 32).
// Shared memory at D 128: Q 32 KiB + K 2×32 KiB + V 2×32 KiB = 160 KiB: one block per SM (causal
// pairs: a second Q buffer, 192 KiB; at D 64 with three consumers: Q 32 KiB for 256 rows +
// 4×16 KiB = 96 KiB (+ 2 KiB of ones with tensor_sums), one block per SM by registers).
// FLOPs 4·B·H·S²·D over the visible pairs; ceiling: BF16 tensor (the cuBLAS rate, ANCHORS.md).
// Elsewhere than sm_90a the kernel body is a trap; the variants declare Feature::wgmma.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/attention_warp_fragments.cuh"
#include "../common/attention_wgmma.cuh"
#include "../common/bf16_pack.cuh"
#include "../common/mbarrier.cuh"
#include "../common/setmaxnreg.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "../common/wgmma.cuh"
#include "attention_kernels.cuh"

namespace aisp::ch18 {
namespace {

using attention::MaskKind;

// Query rows per block of the two-consumer kernels (every one but the D 64 `wg3` rung), and the
// rows of a Q TMA box.
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;       // keys per K/V tile
constexpr int kConsumerRows = 64;  // query rows per consumer warpgroup
// K and V ring stages. Four at D 64 (where the loop turns twice as fast) gained nothing: 643
// against 646 µs with ping-pong, 645 against 636 µs with three consumers (NVIDIA H200, run
// 20261124-064421-3bfc).
constexpr int kStages = 2;
constexpr int kPanelCols = 64;  // TMA box width: 64 BF16 = the 128-byte swizzle span
[[maybe_unused]] constexpr int kProducerRegisters = 24;

// A block: one producer warpgroup and kConsumers consumer warpgroups of 64 query rows each.
// kConsumers 2 (384 threads: 65,536 / 384 = 170 registers each at launch; the producer gives all
// but 24 away, the consumers ask for 240); 3 (the D 64 `wg3` rung, FlashAttention-3's choice at
// head dim 64: 512 threads, 128 registers at launch, 24 for the producer and 160 for the consumers:
// 128·24 + 384·160 = 64,512 of 65,536). Q is loaded in whole kBlockM-row boxes: 256 rows for a
// 192-row block (the last 64 unused).
template <int kConsumers>
struct BlockShape {
  static constexpr int rows = kConsumers * kConsumerRows;
  static constexpr int q_rows = (rows + kBlockM - 1) / kBlockM * kBlockM;
  static constexpr int threads = (kConsumers + 1) * 128;
  static constexpr int consumer_warps = 4 * kConsumers;
  static constexpr int consumer_registers = kConsumers == 2 ? 240 : 160;
  // S not a multiple of the block's rows (192): the last block's rows past S are computed from
  // whatever Q rows the box brought (the next head's, or zeros past the tensor) and not stored.
  static constexpr bool ragged = rows % kBlockN != 0;
  static_assert(kConsumers == 2 || kConsumers == 3, "two or three consumer warpgroups");
  static_assert(128 * kProducerRegisters + 128 * kConsumers * consumer_registers <= 65536,
                "setmaxnreg budgets above the register file");
};
constexpr float kLog2e = 1.4426950408889634f;
// Block order of the token-major launches (FlashHeadLayout::heads_per_group): 16 heads' K and V
// (16 MB at S 2048) in use at a time, and on 132 SMs a list-scheduling estimate of the causal
// S 2048, 32-head grid as short as all heads at once (36 tile-times against 45 head by head).
constexpr int kTokenMajorHeadsPerGroup = 16;
// The [B, H, S, D] masked kernels of launch_flash_fa3 keep the (S / kBlockM, B·H) grid, head by
// head. Launching the causal kernel's blocks heaviest-first across groups of heads (the order
// above, meant to shorten the grid's tail) was slower on the H200 in both group sizes tried, in
// the same run as head by head: 593 against 565 µs with groups of 4 (run 20261124-064421-3bfc);
// with groups of 16, 595 (run 20261124-061451-0e01) against 550 µs (run 20261124-012652-78c6).
// (Those runs predate the pinned P·V wait, which moved every kernel's time; see the chapter
// README.) The causal pair `attention_causal` takes another route to a short tail: query blocks
// in pairs of equal work, head after head (Schedule::causal_pairs, launch_flash_fa3_causal_pairs).

// How a consumer forms the softmax's row sums and exponentials (the D 64 rungs; fp32 elsewhere):
//   fp32:          p = ex2.approx.f32 on the MUFU, row sums by
//                  FADD in FP32 (64 per thread and tile), P packed to BF16 for P·V.
//   tensor_sums:   the same exponentials; no FADD: P·V is issued 8 columns wider (N = D + 8) with
//                  those columns of B pointing at a block of ones in shared memory, so columns
//                  D..D+7 of the O accumulator are the running row sums of P (of the BF16 P that
//                  the numerator uses, rescaled with O). The tensor cores do 12.5% more P·V work
//                  (6% of the tile's) and each thread issues 64 FADD and 2 SHFL fewer per tile.
enum class SoftmaxForm { fp32, tensor_sums };
template <SoftmaxForm kForm>
constexpr bool kSumsOnTensor = kForm != SoftmaxForm::fp32;
// Which query blocks a block of threads computes:
//   one_block:    one, from the grid (x: the query block, y: the (batch, head)).
//   causal_pairs: pairs of a head's query blocks, Q − 1 − x and x (Q query blocks per head,
//                 Q even; pair x of head h is work item h·Q/2 + x), so every pair has the same
//                 Q + 1 key tiles; items blockIdx.x, + gridDim.x, ... A grid of one item per block
//                 of threads lets the hardware hand them out in order (equal lengths: no tail
//                 but the last wave's); a grid of one block per SM makes the kernel persistent.
//                 The producer runs on from one query block into the next (Q of the next block
//                 into the second Q buffer, its K/V into the same rings), so a block's prologue
//                 overlaps the previous one's last tiles and epilogue.
enum class Schedule { one_block, causal_pairs };

template <int kD, int kConsumers = 2>
__host__ __device__ constexpr int q_bytes() {
  return BlockShape<kConsumers>::q_rows * kD * 2;
}
template <int kD>
__host__ __device__ constexpr int kv_tile_bytes() {
  return kBlockN * kD * 2;
}
// The block of ones the tensor-core row sums read: 16 rows (keys: one k16 step) of 128 bytes;
// every k-step's descriptor points its second panel at the same block (below, issue_pv).
constexpr int kOnesBytes = 16 * 128;
template <Schedule kSchedule>
constexpr int kQBuffers = kSchedule == Schedule::causal_pairs ? 2 : 1;
template <int kD, int kConsumers = 2, SoftmaxForm kForm = SoftmaxForm::fp32,
          Schedule kSchedule = Schedule::one_block>
__host__ __device__ constexpr int smem_bytes() {
  return kQBuffers<kSchedule> * q_bytes<kD, kConsumers>() + 2 * kStages * kv_tile_bytes<kD>() +
         (kSumsOnTensor<kForm> ? kOnesBytes : 0) + static_cast<int>(common::kSharedAlignmentSlack);
}

template <int kQ>
struct Barriers {
  std::uint64_t q_full[kQ];
  std::uint64_t k_full[kStages], k_empty[kStages];
  std::uint64_t v_full[kStages], v_empty[kStages];
  std::uint64_t q_empty[kQ];  // used with two Q buffers only
};

// Key tiles [first, last) a block of rows [m0, m0 + kBlockM) visits (all of them for the dense
// masked kernel).
template <MaskKind kMask, bool kSkip>
struct Tiles {
  int first = 0, last = 0;
  __device__ Tiles(int m0, int seq, int window) {
    last = seq / kBlockN;
    if (kSkip && kMask != MaskKind::none) {
      last = (m0 + kBlockM - 1) / kBlockN + 1;
      if (kMask == MaskKind::sliding_window) {
        const int first_key = m0 - window + 1;
        first = first_key > 0 ? first_key / kBlockN : 0;
      }
    }
  }
};

template <MaskKind kMask>
__device__ __forceinline__ bool needs_mask(int m0, int n0, int window) {
  if (kMask == MaskKind::none)
    return false;
  const bool past_diagonal = n0 + kBlockN - 1 > m0;
  if (kMask == MaskKind::causal)
    return past_diagonal;
  return past_diagonal || n0 <= m0 + kBlockM - 1 - window;
}

// The consumer thread's two rows: g and g + 8 of its warp's 16 (accumulator layout, wgmma.cuh).
// With the row sums on the tensor cores (kSumsOnTensor) O has 8 more columns: registers
// kD / 2 + e, all four threads of a quad holding rows g (e = 0, 1) and g + 8 (e = 2, 3).
template <int kD, SoftmaxForm kForm = SoftmaxForm::fp32>
struct ConsumerState {
  static constexpr int kORegisters = kD / 2 + (kSumsOnTensor<kForm> ? 4 : 0);
  // 64×D FP32 accumulator: register 4j + e = row (e / 2), dim 8j + 2q + (e % 2).
  float o[kORegisters];
  float row_base[2];  // running max · scale_log2, rounded once (-inf until a visible key)
  float row_sum[2];   // this thread's part of the row sums (fp32 form only)
};

// Softmax of one tile in S's registers (softmax_max, then softmax_exp): new running max,
// p = 2^(s·scale·log2e − max) in place, running sums, and the two rows' rescale factors for O.
// The running max is kept scaled, as the base b = RN(max · scale_log2) the exponents subtract
// (RN is monotone: max(b_old, RN(tile_max · scale_log2)) = RN(new max · scale_log2)), so O's
// rescale factor 2^(b_old − b_new) is exactly 1 while the max stays. Written as
// 2^(old_max · scale_log2 − b_new), ptxas contracts the product and the difference into one FFMA
// whose result is the product's rounding error, not 0: up to ulp(b) / 2 = 8 at b ~ 2^27 (raw
// scores ~1.6e9: ch14's block on offset inputs), so O and l grew by up to 2^8 per tile that kept
// the max and overflowed after ~15 tiles (Inf rows in the last causal query block). The same
// instruction count: FMUL, FMNMX, FADD for FMNMX, FMUL, FFMA. At such magnitudes the max key's
// own p, 2^fma(max, scale_log2, −b), is within 2^±ulp(b)/2 of 1 (every p of the row shares the
// base, so O / l is unaffected): finite while b < 2^31.
// In two steps, so that the kernel can place the wait for the previous P·V between them:
// softmax_max: the tile's row maxima, the new bases and O's rescale factors; `base` is what the
// exponents subtract (0 for a row with no visible key yet).
[[maybe_unused]] __device__ __forceinline__ void softmax_max(const float (&s)[64],
                                                             float (&row_base)[2], float scale_log2,
                                                             float (&correction)[2],
                                                             float (&base)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    // The row's maximum as a tree (depth 5 instead of a 16-long FMNMX chain: the exponentials
    // wait on it). Against the chain (NVIDIA H200, this session's probe, two runs): D 128 0.813
    // against 0.817 ms, D 64 three consumers 0.568 against 0.581 ms, with tensor-core sums 0.537
    // against 0.540 ms.
    float m[16];
#pragma unroll
    for (int j = 0; j < 16; ++j)
      m[j] = fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      m[j] = fmaxf(m[j], m[j + 8]);
#pragma unroll
    for (int j = 0; j < 4; ++j)
      m[j] = fmaxf(m[j], m[j + 4]);
#pragma unroll
    for (int j = 0; j < 2; ++j)
      m[j] = fmaxf(m[j], m[j + 2]);
    float tile_max = fmaxf(m[0], m[1]);
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
    const float new_base = fmaxf(row_base[h], tile_max * scale_log2);
    base[h] = new_base == -INFINITY ? 0.0f : new_base;  // a row with no visible key yet
    correction[h] = common::exp2_approx(row_base[h] - base[h]);
    row_base[h] = new_base;
  }
}
// softmax_exp: p = 2^(s·scale_log2 − base) in place and (kSums) the running row sums; kSums
// false (SoftmaxForm::tensor_sums): no FADD, O's extra columns hold the sums.
template <bool kSums = true>
[[maybe_unused]] __device__ __forceinline__ void softmax_exp(float (&s)[64], const float (&base)[2],
                                                             float (&row_sum)[2], float scale_log2,
                                                             const float (&correction)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float x = fmaf(s[4 * j + 2 * h + e], scale_log2, -base[h]);
        const float p = common::exp2_approx(x);
        s[4 * j + 2 * h + e] = p;
        if constexpr (kSums)
          sum += p;
      }
    if constexpr (kSums)
      row_sum[h] = row_sum[h] * correction[h] + sum;
  }
}

// P (FP32 in S's registers) as BF16 A fragments, one per 16-key k-step (n-tiles 2kk, 2kk + 1).
[[maybe_unused]] __device__ __forceinline__ void pack_p(const float (&s)[64],
                                                        std::uint32_t (&p)[8][4]) {
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    p[kk][0] = common::pack_bf16x2(s[8 * kk + 0], s[8 * kk + 1]);
    p[kk][1] = common::pack_bf16x2(s[8 * kk + 2], s[8 * kk + 3]);
    p[kk][2] = common::pack_bf16x2(s[8 * kk + 4], s[8 * kk + 5]);
    p[kk][3] = common::pack_bf16x2(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

template <MaskKind kMask>
__device__ __forceinline__ void mask_tile(float (&s)[64], int row0, int n0, int window, int lane) {
  const int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int j = 0; j < 16; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int row = row0 + g + 8 * (e >> 1);
      const int key = n0 + 8 * j + 2 * q + (e & 1);
      if (key > row || (kMask == MaskKind::sliding_window && key <= row - window))
        s[4 * j + e] = -INFINITY;
    }
}

template <int kD, int kQPanelRows>
__device__ __forceinline__ void issue_scores(float (&s)[64], const std::uint8_t* q_rows,
                                             const std::uint8_t* k_tile) {
  // Q: this warpgroup's 64 rows (panel stride kQPanelRows·128 bytes); K: the tile's 128 keys.
#pragma unroll
  for (int ks = 0; ks < kD / 16; ++ks) {
    const std::uint64_t a =
        common::wgmma_descriptor_k_major_sw128(q_rows + (ks / 4) * (kQPanelRows * 128)) +
        2 * (ks % 4);
    const std::uint64_t b =
        common::wgmma_descriptor_k_major_sw128(k_tile + (ks / 4) * (kBlockN * 128)) + 2 * (ks % 4);
    common::wgmma_m64n128k16_bf16(s, a, b, ks > 0);
  }
}

// O += P·V. With the row sums on the tensor cores (head dim 64 only) B is 72 columns wide: the V
// tile's 64-column panel, and as the "next panel" (the descriptor's leading byte offset) the
// block of ones, the same 16 rows for every k-step.
template <int kD, SoftmaxForm kForm = SoftmaxForm::fp32>
__device__ __forceinline__ void issue_pv(float (&o)[ConsumerState<kD, kForm>::kORegisters],
                                         const std::uint32_t (&p)[8][4], const std::uint8_t* v_tile,
                                         const std::uint8_t* ones) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk) {
    const std::uint8_t* v_rows = v_tile + kk * 16 * 128;
    if constexpr (kSumsOnTensor<kForm>) {
      static_assert(kD == 64, "row sums on the tensor cores: head dim 64 only");
      const std::uint64_t b = common::wgmma_descriptor_mn_major_sw128(
          v_rows, static_cast<std::uint32_t>(ones - v_rows));
      common::wgmma_m64n72k16_bf16_rs_tn(o, p[kk], b);
    } else {
      (void)ones;
      const std::uint64_t b = common::wgmma_descriptor_mn_major_sw128(v_rows, kBlockN * 128);
      if constexpr (kD == 128)
        common::wgmma_m64n128k16_bf16_rs_tn(o, p[kk], b);
      else
        common::wgmma_m64n64k16_bf16_rs_tn(o, p[kk], b);
    }
  }
}

// Ping-pong turns between the two consumer warpgroups: named barrier 1 + c is warpgroup c's turn
// to issue GEMMs; it completes when c's 128 threads wait on it (bar.sync) and the other
// warpgroup's 128 have arrived (bar.arrive, which does not wait). Each GEMM-issue phase of c is
// wait_turn(c) ... issue, commit ... pass_turn(1 − c), so the phases alternate c0, c1, c0, c1:
// consumer 0 issues its next Q·Kᵀ and P·V only after consumer 1 issued its own, i.e. while
// consumer 1's are queued on the tensor cores, consumer 0 runs its softmax, and the reverse.
// Consumer 1 passes the first turn to consumer 0 before its loop and skips the pass after its
// last phase, so every bar.sync meets exactly one bar.arrive (count + 1 phases each).
constexpr int kTurnThreads = 256;  // the two consumer warpgroups
// Barrier ids as immediates (a register id makes ptxas reserve all 16 named barriers).
[[maybe_unused]] __device__ __forceinline__ void wait_turn(int consumer) {
  if (consumer == 0)
    asm volatile("bar.sync 1, %0;" ::"n"(kTurnThreads) : "memory");
  else
    asm volatile("bar.sync 2, %0;" ::"n"(kTurnThreads) : "memory");
}
[[maybe_unused]] __device__ __forceinline__ void pass_turn(int to_consumer) {
  if (to_consumer == 0)
    asm volatile("bar.arrive 1, %0;" ::"n"(kTurnThreads) : "memory");
  else
    asm volatile("bar.arrive 2, %0;" ::"n"(kTurnThreads) : "memory");
}

// kTokenMajor: the layout of FlashHeadLayout (ch14's fused QKV output, a 1D grid in groups of
// heads); otherwise [B, H, S, D] with a (S / kBlockM, B·H) grid and compile-time offsets. A
// compile-time choice: with the layout read at run time in every instantiation, the dense D 128
// kernel ran 0.85 -> 1.03 ms on the H200 (A/B, 2026-11-24), though its inner loop's instruction
// mix was unchanged (most likely ptxas moving the P·V wait, which the kernel now pins: see pin).
// kConsumers: consumer warpgroups (BlockShape; 3 for the unmasked [B, H, S, D] kernel only).
// kForm: SoftmaxForm (tensor_sums: the unmasked head-dim-64 [B, H, S, D] kernels).
// kSchedule: Schedule (causal_pairs: the [B, H, S, D] causal kernel that skips masked tiles;
// work_items is its number of pairs, B·H·Q/2; unused otherwise).
template <int kD, MaskKind kMask, bool kSkip, bool kPingPong = false, bool kTokenMajor = false,
          int kConsumers = 2, SoftmaxForm kForm = SoftmaxForm::fp32,
          Schedule kSchedule = Schedule::one_block>
__global__ void __launch_bounds__(BlockShape<kConsumers>::threads, 1)
    flash_fa3_kernel(const __grid_constant__ CUtensorMap q_map,
                     const __grid_constant__ CUtensorMap k_map,
                     const __grid_constant__ CUtensorMap v_map, __nv_bfloat16* __restrict__ o,
                     int seq, int heads, FlashHeadLayout layout, int window, float scale_log2,
                     int work_items) {
  static_assert(kConsumers == 2 || (kMask == MaskKind::none && !kTokenMajor && !kPingPong),
                "three consumer warpgroups: unmasked, [B, H, S, D], no ping-pong turns only");
  static_assert(kForm == SoftmaxForm::fp32 || (kD == 64 && kMask == MaskKind::none && !kTokenMajor),
                "row sums on the tensor cores: unmasked head dim 64, [B, H, S, D]");
  static_assert(kSchedule == Schedule::one_block ||
                    (kMask == MaskKind::causal && kSkip && !kTokenMajor && !kPingPong &&
                     kConsumers == 2 && kForm == SoftmaxForm::fp32),
                "pairs of query blocks: the [B, H, S, D] causal kernel that skips masked tiles");
  using Block = BlockShape<kConsumers>;
  constexpr int kQBuffersHere = kQBuffers<kSchedule>;
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t smem_window[];
  std::uint8_t* q_tiles = common::align_shared_1024(smem_window);
  std::uint8_t* k_tiles = q_tiles + kQBuffersHere * q_bytes<kD, kConsumers>();
  std::uint8_t* v_tiles = k_tiles + kStages * kv_tile_bytes<kD>();
  std::uint8_t* ones = v_tiles + kStages * kv_tile_bytes<kD>();  // kSumsOnTensor only
  __shared__ Barriers<kQBuffersHere> bars;

  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  const int query_blocks_in_seq = kTokenMajor || kSchedule == Schedule::causal_pairs
                                      ? seq / kBlockM
                                      : static_cast<int>(gridDim.x);
  // Query block b of this block of threads (under a mask the ones with the most key tiles
  // first): its first row m0 and its (sequence, head), whose rows and columns in the maps and in
  // O FlashHeadLayout gives; false past this block's last.
  const auto query_block = [&](int b, int& head_row, int& head_col, int& m0) -> bool {
    int block_in_seq = 0;
    head_row = 0;
    head_col = 0;
    if constexpr (kSchedule == Schedule::causal_pairs) {  // pairs Q − 1 − x, x (Schedule)
      const int pairs = query_blocks_in_seq / 2;
      const int item = static_cast<int>(blockIdx.x) + (b / 2) * static_cast<int>(gridDim.x);
      if (item >= work_items)
        return false;
      const int head = item / pairs, x = item - head * pairs;
      head_row = head * seq;
      m0 = (b % 2 == 0 ? query_blocks_in_seq - 1 - x : x) * kBlockM;
      return true;
    } else {
      if (b > 0)
        return false;
      if constexpr (kTokenMajor) {  // 1D grid, groups of heads (FlashHeadLayout)
        const int group_blocks = layout.heads_per_group * query_blocks_in_seq;
        const int group = static_cast<int>(blockIdx.x) / group_blocks;
        const int first_head = group * layout.heads_per_group;
        const int all_heads = static_cast<int>(gridDim.x) / query_blocks_in_seq;
        const int group_heads = min(layout.heads_per_group, all_heads - first_head);
        const int rank = static_cast<int>(blockIdx.x) - group * group_blocks;
        block_in_seq = rank / group_heads;
        const int sequence_head = first_head + rank % group_heads;
        head_row = (sequence_head / heads) * layout.rows_per_batch;
        head_col = (sequence_head % heads) * layout.cols_per_head;
      } else {  // grid (S / kBlockM, B·H): [B, H, S, D], a head's rows contiguous
        block_in_seq = static_cast<int>(blockIdx.x);
        head_row = static_cast<int>(blockIdx.y) * seq;
      }
      const int m_block =
          kMask == MaskKind::none ? block_in_seq : query_blocks_in_seq - 1 - block_in_seq;
      m0 = m_block * Block::rows;
      return true;
    }
  };

  if constexpr (kSumsOnTensor<kForm>) {  // BF16 ones, read by the tensor cores (async proxy)
    for (int i = static_cast<int>(threadIdx.x); i < kOnesBytes / 4; i += Block::threads)
      reinterpret_cast<std::uint32_t*>(ones)[i] = 0x3F803F80u;
    common::fence_proxy_async_shared();
  }
  if (threadIdx.x == 0) {
    for (int b = 0; b < kQBuffersHere; ++b) {
      common::mbarrier_init(&bars.q_full[b], 1);
      if (kQBuffersHere > 1)
        common::mbarrier_init(&bars.q_empty[b], Block::consumer_warps);
    }
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&bars.k_full[s], 1);
      common::mbarrier_init(&bars.v_full[s], 1);
      common::mbarrier_init(&bars.k_empty[s], Block::consumer_warps);
      common::mbarrier_init(&bars.v_empty[s], Block::consumer_warps);
    }
    common::mbarrier_init_fence();
    common::fence_proxy_async_shared();
  }
  __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<kProducerRegisters>();
    if (threadIdx.x == 0) {
      int ring = 0;  // key tiles loaded so far, over all this block's query blocks
      int head_row = 0, head_col = 0, m0 = 0;
      for (int b = 0; query_block(b, head_row, head_col, m0); ++b) {
        const Tiles<kMask, kSkip> tiles(m0, seq, window);
        const int qb = b % kQBuffersHere;
        std::uint8_t* q_tile = q_tiles + qb * q_bytes<kD, kConsumers>();
        if (b >= kQBuffersHere)  // the buffer's previous query block has released it
          common::mbarrier_wait_parity(&bars.q_empty[qb],
                                       static_cast<std::uint32_t>((b / kQBuffersHere - 1) % 2));
        common::mbarrier_arrive_expect_tx(&bars.q_full[qb], q_bytes<kD, kConsumers>());
        for (int p = 0; p < kD / kPanelCols; ++p)
          for (int box = 0; box < Block::q_rows / kBlockM; ++box)
            common::tma_load_2d(q_tile + (p * Block::q_rows + box * kBlockM) * 128, q_map,
                                &bars.q_full[qb], head_col + p * kPanelCols,
                                head_row + m0 + box * kBlockM);
        for (int t = tiles.first; t < tiles.last; ++t, ++ring) {
          const int s = ring % kStages;
          const std::uint32_t parity = static_cast<std::uint32_t>((ring / kStages) % 2);
          const int row = head_row + t * kBlockN;
          common::mbarrier_wait_parity(&bars.k_empty[s], parity ^ 1u);  // first use: free
          common::mbarrier_arrive_expect_tx(&bars.k_full[s], kv_tile_bytes<kD>());
          for (int p = 0; p < kD / kPanelCols; ++p)
            common::tma_load_2d(k_tiles + s * kv_tile_bytes<kD>() + p * kBlockN * 128, k_map,
                                &bars.k_full[s], head_col + p * kPanelCols, row);
          common::mbarrier_wait_parity(&bars.v_empty[s], parity ^ 1u);
          common::mbarrier_arrive_expect_tx(&bars.v_full[s], kv_tile_bytes<kD>());
          for (int p = 0; p < kD / kPanelCols; ++p)
            common::tma_load_2d(v_tiles + s * kv_tile_bytes<kD>() + p * kBlockN * 128, v_map,
                                &bars.v_full[s], head_col + p * kPanelCols, row);
        }
      }
    }
  } else {
    common::setmaxnreg_increase<Block::consumer_registers>();
    const int consumer = warpgroup - 1;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp_in_group = (static_cast<int>(threadIdx.x) / 32) % 4;
    const auto k_tile = [&](int s) { return k_tiles + s * kv_tile_bytes<kD>(); };
    const auto v_tile = [&](int s) { return v_tiles + s * kv_tile_bytes<kD>(); };
    const auto release = [&](std::uint64_t* bar) {
      __syncwarp();
      if (lane == 0)
        common::mbarrier_arrive(bar);
    };
    const auto stage_of = [](int ring) { return ring % kStages; };
    const auto parity_of = [](int ring) {
      return static_cast<std::uint32_t>((ring / kStages) % 2);
    };

    int ring = 0;  // key tiles consumed so far, over all this block's query blocks
    int head_row = 0, head_col = 0, m0 = 0;
    for (int b = 0; query_block(b, head_row, head_col, m0); ++b) {
      const Tiles<kMask, kSkip> tiles(m0, seq, window);
      const int qb = b % kQBuffersHere;
      const int row0 = m0 + consumer * kConsumerRows + warp_in_group * 16;  // this warp's rows
      const std::uint8_t* q_rows =
          q_tiles + qb * q_bytes<kD, kConsumers>() + consumer * kConsumerRows * 128;

      ConsumerState<kD, kForm> st;
#pragma unroll
      for (int i = 0; i < ConsumerState<kD, kForm>::kORegisters; ++i)
        st.o[i] = 0.0f;
      st.row_base[0] = st.row_base[1] = -INFINITY;
      st.row_sum[0] = st.row_sum[1] = 0.0f;
      float s[64];
      std::uint32_t p[8][4];
      float correction[2];
      // The softmax of S's registers (FP32 exponentials in place), then, once the previous tile's
      // P·V has retired, P's BF16 fragments from them.
      float base[2];
      const auto softmax_first = [&] { softmax_max(s, st.row_base, scale_log2, correction, base); };
      const auto softmax_second = [&] {
        softmax_exp<!kSumsOnTensor<kForm>>(s, base, st.row_sum, scale_log2, correction);
      };
      const auto to_p = [&] { pack_p(s, p); };
      // A branch on values the softmax computed ends the basic block, and ptxas schedules within
      // basic blocks: the wait for the previous tile's P·V that follows cannot be hoisted above
      // them (it was, from one build to the next: the D 128 kernel took 0.82 or 0.96 ms on the
      // H200). Taken only while a row has seen no visible key (a base of -inf, masked kernels);
      // its body, a fence, changes nothing then either.
      const auto pin = [&](float a, float b) {
        if (a + b < -3.0e38f)
          asm volatile("membar.cta;" ::: "memory");
      };

      // Ping-pong: the turns (above); consumer 0 takes the first.
      const auto begin_issue = [&] {
        if constexpr (kPingPong)
          wait_turn(consumer);
      };
      const auto end_issue = [&](bool last_phase) {
        if constexpr (kPingPong)
          if (!(last_phase && consumer == 1))
            pass_turn(1 - consumer);
      };
      if constexpr (kPingPong)
        if (consumer == 1)
          pass_turn(0);

      common::mbarrier_wait_parity(&bars.q_full[qb],
                                   static_cast<std::uint32_t>((b / kQBuffersHere) % 2));
      // Tile 0: scores and softmax only (its P·V is issued with the next tile's scores).
      common::mbarrier_wait_parity(&bars.k_full[stage_of(ring)], parity_of(ring));
      begin_issue();
      common::wgmma_fence();
      issue_scores<kD, Block::q_rows>(s, q_rows, k_tile(stage_of(ring)));
      common::wgmma_commit_group();
      end_issue(false);
      common::wgmma_wait_group<0>();
      common::wgmma_fence_accumulators(s);
      release(&bars.k_empty[stage_of(ring)]);
      if (needs_mask<kMask>(m0, tiles.first * kBlockN, window))
        mask_tile<kMask>(s, row0, tiles.first * kBlockN, window, lane);
      softmax_first();
      softmax_second();
      to_p();

      const int count = tiles.last - tiles.first;
      for (int i = 1; i < count; ++i) {
        const int t = tiles.first + i;
        const int stage = stage_of(ring + i), previous = stage_of(ring + i - 1);
        common::mbarrier_wait_parity(&bars.k_full[stage], parity_of(ring + i));
        if constexpr (kPingPong)  // both operands present before taking the turn
          common::mbarrier_wait_parity(&bars.v_full[previous], parity_of(ring + i - 1));
        begin_issue();
        common::wgmma_fence();
        issue_scores<kD, Block::q_rows>(s, q_rows, k_tile(stage));
        common::wgmma_commit_group();
        common::mbarrier_wait_parity(&bars.v_full[previous], parity_of(ring + i - 1));
        // P·V reads P from registers: a warpgroup.arrive between the last write of P's registers
        // (or the compiler's copies of them) and this wgmma. Without it ptxas injects one here
        // and says so (C7519); the machine code is byte-identical either way (all eight kernels,
        // compared 2026-11-24): the note was never a serialization.
        common::wgmma_fence();
        issue_pv<kD, kForm>(st.o, p, v_tile(previous), ones);
        common::wgmma_commit_group();
        end_issue(false);
        common::wgmma_wait_group<1>();  // the scores are ready; P·V of the previous tile runs on
        common::wgmma_fence_accumulators(s);
        release(&bars.k_empty[stage]);
        if (needs_mask<kMask>(m0, t * kBlockN, window))
          mask_tile<kMask>(s, row0, t * kBlockN, window, lane);
        // The row maxima under the previous tile's P·V, pinned before its wait (pin); the
        // exponentials after it. Against the exponentials pinned before the wait too (NVIDIA
        // H200, this session's probe, same run): D 128 0.81 against 0.83 ms, causal pairs 0.43
        // against 0.44 ms, three-consumer D 64 with tensor-core sums 0.54 against 0.55 ms.
        softmax_first();
        pin(st.row_base[0], st.row_base[1]);
        common::wgmma_wait_group<0>();  // P·V of the previous tile has retired
        softmax_second();
        common::wgmma_fence_accumulators(st.o);
#pragma unroll
        for (int kk = 0; kk < 8; ++kk)
          common::wgmma_fence_fragments(p[kk]);
        release(&bars.v_empty[previous]);
#pragma unroll
        for (int j = 0; j < ConsumerState<kD, kForm>::kORegisters / 4; ++j) {
          st.o[4 * j + 0] *= correction[0];
          st.o[4 * j + 1] *= correction[0];
          st.o[4 * j + 2] *= correction[1];
          st.o[4 * j + 3] *= correction[1];
        }
        to_p();
      }
      const int last = stage_of(ring + count - 1);
      common::mbarrier_wait_parity(&bars.v_full[last], parity_of(ring + count - 1));
      begin_issue();
      common::wgmma_fence();
      issue_pv<kD, kForm>(st.o, p, v_tile(last), ones);
      common::wgmma_commit_group();
      end_issue(true);
      common::wgmma_wait_group<0>();
      common::wgmma_fence_accumulators(st.o);
      release(&bars.v_empty[last]);
      if constexpr (kQBuffersHere > 1)
        release(&bars.q_empty[qb]);
      ring += count;

      // O / l in BF16: rows g and g + 8 of the warp's 16, dims 8j + 2q, +1.
      const int g = lane >> 2, q = lane & 3;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        // Rows past S (the last block of a ragged grid) are not stored: with S a multiple of 128
        // (check_flash_shape) they are whole warpgroups' rows, so the warp skips as one.
        if (Block::ragged && row0 >= seq)
          break;
        float l;
        if constexpr (kSumsOnTensor<kForm>) {
          l = st.o[kD / 2 + 2 * h];  // column D of O: the row's sum of P, in every quad thread
        } else {
          l = st.row_sum[h];
          l += __shfl_xor_sync(0xffffffffu, l, 1);
          l += __shfl_xor_sync(0xffffffffu, l, 2);
        }
        const float inv = 1.0f / l;
        const long long o_pitch = kTokenMajor ? layout.o_row_pitch : kD;
        __nv_bfloat16* out =
            o + (static_cast<long long>(head_row) + row0 + g + 8 * h) * o_pitch + head_col;
#pragma unroll
        for (int j = 0; j < kD / 8; ++j)
          *reinterpret_cast<std::uint32_t*>(out + 8 * j + 2 * q) =
              common::pack_bf16x2(st.o[4 * j + 2 * h] * inv, st.o[4 * j + 2 * h + 1] * inv);
      }
    }
  }
#else
  (void)q_map, (void)k_map, (void)v_map, (void)o, (void)seq, (void)heads, (void)layout,
      (void)window, (void)scale_log2, (void)work_items, (void)Block::consumer_warps,
      (void)Block::ragged, (void)kQBuffersHere;
  __trap();
#endif
}

// max_grid > 0 (Schedule::causal_pairs): at most that many blocks of threads (one per SM: the
// persistent form), each taking work items blockIdx.x, + gridDim.x, ...; 0: one per item.
template <int kD, MaskKind kMask, bool kSkip, bool kPingPong = false, bool kTokenMajor = false,
          int kConsumers = 2, SoftmaxForm kForm = SoftmaxForm::fp32,
          Schedule kSchedule = Schedule::one_block>
void launch(const ForwardShape& shape, const FlashWgmmaMaps& maps, __nv_bfloat16* o,
            cudaStream_t stream, int max_grid = 0) {
  using Block = BlockShape<kConsumers>;
  constexpr int kSmemBytes = smem_bytes<kD, kConsumers, kForm, kSchedule>();
  const auto kernel =
      flash_fa3_kernel<kD, kMask, kSkip, kPingPong, kTokenMajor, kConsumers, kForm, kSchedule>;
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("flash FA3: cannot raise shared memory to ") +
                             std::to_string(kSmemBytes) + " bytes: " + cudaGetErrorString(status));
  const auto query_blocks = static_cast<unsigned>((shape.seq + Block::rows - 1) / Block::rows);
  const auto heads = static_cast<unsigned>(shape.heads), batch = static_cast<unsigned>(shape.batch);
  dim3 grid = kTokenMajor ? dim3(query_blocks * heads * batch) : dim3(query_blocks, heads * batch);
  int work_items = 0;
  if constexpr (kSchedule == Schedule::causal_pairs) {
    if (query_blocks % 2 != 0)
      throw std::invalid_argument("flash FA3, causal pairs: the sequence (" +
                                  std::to_string(shape.seq) + ") must be a multiple of " +
                                  std::to_string(2 * Block::rows) + " (pairs of query blocks)");
    work_items = static_cast<int>(query_blocks / 2 * heads * batch);
    grid = dim3(static_cast<unsigned>(max_grid > 0 ? std::min(max_grid, work_items) : work_items));
  }
  kernel<<<grid, Block::threads, kSmemBytes, stream>>>(maps.q, maps.k, maps.v, o, shape.seq,
                                                       shape.heads, maps.layout, shape.window,
                                                       shape.softmax_scale() * kLog2e, work_items);
}

}  // namespace

bool flash_fa3_built_for_sm90a() {
  // The launcher runs on the host; ask the runtime which code the kernel carries for this GPU.
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, flash_fa3_kernel<128, MaskKind::none, false>) !=
      cudaSuccess)
    return false;
  return attributes.binaryVersion == 90;
}

FlashWgmmaMaps make_flash_wgmma_maps(const ForwardShape& shape, const ForwardTensors& tensors) {
  check_flash_shape(shape, "flash FA3");
  const auto map = [&](const __nv_bfloat16* base, int box_rows) {
    common::TiledMatrix2d m;
    m.base = base;
    m.rows = static_cast<std::uint64_t>(shape.batch) * shape.heads * shape.seq;
    m.cols = static_cast<std::uint64_t>(shape.head_dim);
    m.box_rows = static_cast<std::uint32_t>(box_rows);
    m.box_cols = kPanelCols;
    return common::encode_tiled_matrix_2d(m);
  };
  FlashHeadLayout layout;
  layout.rows_per_batch = shape.heads * shape.seq;
  layout.rows_per_head = shape.seq;
  layout.cols_per_head = 0;
  layout.o_row_pitch = shape.head_dim;
  return {map(tensors.q, kBlockM), map(tensors.k, kBlockN), map(tensors.v, kBlockN), layout};
}

FlashWgmmaMaps make_flash_wgmma_maps_token_major(const ForwardShape& shape,
                                                 const ForwardTensors& tensors,
                                                 long long qkv_row_pitch, long long o_row_pitch) {
  check_flash_shape(shape, "flash FA3, token-major");
  const long long head_cols = static_cast<long long>(shape.heads) * shape.head_dim;
  const long long rows = static_cast<long long>(shape.batch) * shape.seq;
  if (qkv_row_pitch < head_cols || o_row_pitch < head_cols || qkv_row_pitch % 8 != 0 ||
      o_row_pitch % 8 != 0 || o_row_pitch > (1LL << 30))
    throw std::invalid_argument("flash FA3, token-major: row pitches (" +
                                std::to_string(qkv_row_pitch) + ", " + std::to_string(o_row_pitch) +
                                " elements) must be multiples of 8 (16-byte rows), at least heads "
                                "x head_dim (" +
                                std::to_string(head_cols) + "), and O's below 2^30");
  if (tensors.o == nullptr || reinterpret_cast<std::uintptr_t>(tensors.o) % 16 != 0)
    throw std::invalid_argument("flash FA3, token-major: O must be non-null and 16-byte aligned");
  const auto map = [&](const __nv_bfloat16* base, int box_rows) {
    common::TiledMatrix2d m;
    m.base = base;
    m.rows = static_cast<std::uint64_t>(rows);
    m.cols = static_cast<std::uint64_t>(head_cols);
    m.row_pitch_bytes = static_cast<std::uint64_t>(qkv_row_pitch) * sizeof(__nv_bfloat16);
    m.box_rows = static_cast<std::uint32_t>(box_rows);
    m.box_cols = kPanelCols;
    return common::encode_tiled_matrix_2d(m);
  };
  FlashHeadLayout layout;
  layout.rows_per_batch = shape.seq;
  layout.rows_per_head = 0;
  layout.cols_per_head = shape.head_dim;
  layout.o_row_pitch = static_cast<int>(o_row_pitch);
  layout.heads_per_group = kTokenMajorHeadsPerGroup;
  return {map(tensors.q, kBlockM), map(tensors.k, kBlockN), map(tensors.v, kBlockN), layout};
}

void launch_flash_fa3(const ForwardShape& shape, const FlashWgmmaMaps& maps, __nv_bfloat16* o,
                      MaskedTiles masked, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA3");
  if (maps.layout.heads_per_group > 0) {  // token-major maps: built for ch14's causal block only
    if (shape.head_dim != 128 || shape.mask != MaskKind::causal || masked != MaskedTiles::skip)
      throw std::invalid_argument("flash FA3, token-major: built for head_dim 128, causal, "
                                  "skipping masked tiles (ch14's transformer block) only");
    return launch<128, MaskKind::causal, true, false, true>(shape, maps, o, stream);
  }
  if (shape.head_dim == 64) {
    if (shape.mask != MaskKind::none)
      throw std::invalid_argument("flash FA3: masks are built for head_dim 128 only");
    return launch<64, MaskKind::none, false>(shape, maps, o, stream);
  }
  const bool skip = masked == MaskedTiles::skip;
  switch (shape.mask) {
  case MaskKind::none:
    return launch<128, MaskKind::none, false>(shape, maps, o, stream);
  case MaskKind::causal:
    return skip ? launch<128, MaskKind::causal, true>(shape, maps, o, stream)
                : launch<128, MaskKind::causal, false>(shape, maps, o, stream);
  case MaskKind::sliding_window:
    return skip ? launch<128, MaskKind::sliding_window, true>(shape, maps, o, stream)
                : launch<128, MaskKind::sliding_window, false>(shape, maps, o, stream);
  }
}

void launch_flash_fa3_pingpong(const ForwardShape& shape, const FlashWgmmaMaps& maps,
                               __nv_bfloat16* o, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA3 ping-pong");
  if (maps.layout.heads_per_group > 0)
    throw std::invalid_argument("flash FA3 ping-pong: built for [B, H, S, D] maps only");
  if (shape.mask != MaskKind::none)
    throw std::invalid_argument("flash FA3 ping-pong: built for the unmasked problem only");
  if (shape.head_dim == 64)
    return launch<64, MaskKind::none, false, true>(shape, maps, o, stream);
#ifdef AISP_ATTENTION_PROBE_SWEEP
  // Probe only: the same turns at D 128, where the intra-warpgroup overlap already reaches cuDNN.
  return launch<128, MaskKind::none, false, true>(shape, maps, o, stream);
#else
  throw std::invalid_argument("flash FA3 ping-pong: built for head_dim 64 (the D 64 rung)");
#endif
}

// Declared in attention_flash_variants.cuh, beside the variants that name these builds.
void launch_flash_fa3_d64(const ForwardShape& shape, const FlashWgmmaMaps& maps, __nv_bfloat16* o,
                          Fa3D64Kernel kernel, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA3, head dim 64");
  if (maps.layout.heads_per_group > 0 || shape.mask != MaskKind::none || shape.head_dim != 64)
    throw std::invalid_argument("flash FA3, head dim 64 rungs: built for the unmasked head_dim 64 "
                                "problem with [B, H, S, D] maps only");
  using enum Fa3D64Softmax;
  constexpr auto kSums = SoftmaxForm::tensor_sums;
  if (kernel.consumers == 3 && !kernel.pingpong) {
    if (kernel.softmax == fp32)
      return launch<64, MaskKind::none, false, false, false, 3>(shape, maps, o, stream);
    if (kernel.softmax == tensor_sums)
      return launch<64, MaskKind::none, false, false, false, 3, kSums>(shape, maps, o, stream);
  }
  if (kernel.consumers == 2 && kernel.pingpong && kernel.softmax == fp32)
    return launch<64, MaskKind::none, false, true>(shape, maps, o, stream);
  throw std::invalid_argument(
      "flash FA3, head dim 64: no build with " + std::to_string(kernel.consumers) +
      " consumer warpgroups, ping-pong " + (kernel.pingpong ? "on" : "off") + ", softmax form " +
      std::to_string(static_cast<int>(kernel.softmax)) +
      " (built: three consumers with FP32 or tensor-core row sums; ping-pong with FP32 sums)");
}

void launch_flash_fa3_causal_pairs(const ForwardShape& shape, const FlashWgmmaMaps& maps,
                                   __nv_bfloat16* o, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA3, causal pairs");
  if (maps.layout.heads_per_group > 0 || shape.mask != MaskKind::causal || shape.head_dim != 128)
    throw std::invalid_argument("flash FA3, causal pairs: built for the causal head_dim 128 "
                                "problem with [B, H, S, D] maps only");
  int device = 0, sm_count = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    throw std::runtime_error("flash FA3, causal pairs: cannot read the GPU's SM count");
  launch<128, MaskKind::causal, true, false, false, 2, SoftmaxForm::fp32, Schedule::causal_pairs>(
      shape, maps, o, stream, sm_count);
}

}  // namespace aisp::ch18
