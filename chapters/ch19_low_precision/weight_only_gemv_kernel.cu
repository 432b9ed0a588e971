// Weight-only INT4/INT8 GEMV with the dequantization fused in (weight_only_gemv_kernel.cuh).
//
// Decode multiplies a few tokens (batch 1..16) by every weight once: 2·batch FLOPs per weight
// against 0.5 (INT4) or 1 (INT8) byte, far below any machine balance, so the only goal is to read
// the weight bytes at HBM speed and do the rest in their shadow. At 4.3 TB/s an H200 SM must take
// in ~32 bytes per ns; with a loaded HBM latency of ~1-1.5 µs that is 32-64 KB in flight per SM,
// all the time, from the first ns to the last.
//
// How the kernel keeps them in flight:
// - A row set (32 rows: two 16-row tiles; INT8 at batch <= 8: one tile) belongs to two warps, each
//   over half of K (INT8 at batch <= 8: one warp over all of K); the halves' sums meet in shared
//   memory at the end (one block barrier). With the weights pre-packed (launch_weight_only_pack,
//   in setup) each tile's K is one contiguous 32 KiB (INT4) / 64 KiB (INT8) run, copied as
//   16-byte pieces that cover 512 contiguous bytes per warp instruction. Two tiles per warp share
//   the warp's x loads, scale handling and loop overhead. Measured on the H200 against one tile
//   per warp (both split in two): INT4 batch 1 the same (27.5 / 27.2 µs), batch 4 30.0 / 35.4,
//   batch 16 39.0 / 66.1, INT8 batch 16 49.5 / 64.1; INT8 batch 1 is 5% faster with one tile and
//   all of K per warp (39.1 against 40.9 µs), so it keeps that.
// - The copies are cp.async (L2 -> shared memory, .cg: L1 keeps x) into a ring of kStages groups
//   per warp, kStages - 1 of them in flight: 8 KiB per warp (INT4: 4 groups × 2 tiles × 1 KiB;
//   INT8 at batch 16: 2 × 2 × 2 KiB), 4 KiB for INT8 at batch <= 8 (2 × 2 KiB). The ring mirrors
//   the packed chunks, so each lane reads back only what it copied: cp.async.wait_group, no
//   barrier. Deeper rings measured slower on the H200 (INT4 batch 1: 9 stages 35.4 µs against 5
//   stages 33.2 µs, an intermediate version with one tile per warp).
// - One wave: 896 row sets of two warps in 448 blocks of 4 warps, registers capped at 128 so 4
//   blocks fit per SM (3.4 needed); INT8 at batch <= 8: 1792 warps in 896 blocks of 2, 7 per SM.
//   ~13.6 warps per SM either way, ~109 KiB (~54 KiB) in flight per SM.
// - The weights are tagged L2 evict-first: the harness empties L2 before each sample by writing a
//   buffer, so L2 starts full of dirty lines, and every line a read allocates in place of one of
//   them costs a write-back. With evict-first weights the lines a read allocates come from
//   weights already consumed. Measured on the H200 (an intermediate version, one tile per warp):
//   with evict_normal instead, INT4 batch 1 took 35.6 µs against 33.2, INT8 batch 1 45.0
//   against 42.4.
// - The products run on the tensor cores (mma.sync m16n8k16 bf16, fp32 accumulation) with the
//   batch as the MMA's N (one n8 tile, two above batch 8; columns beyond the batch are zeros).
//   SIMT FMAs would need 1 (batch 1) to 16 (batch 16) FP32 instructions per weight against a
//   budget of ~4 per INT4 weight at full bandwidth; an MMA takes 256 weights of a warp per
//   instruction, so batch 16 costs no more issue slots than batch 1 but one more MMA per tile.
// - Per thread (g = lane/4, q = lane%4) and group, the A fragments of the group's 8 MMA steps
//   come from its own 16 (INT4) / 32 (INT8) bytes of rows g and g+8, with the k dimension
//   permuted so those loads are wide: for step s the thread holds the weights at
//   k = 32q + 4s + 0..3, where the MMA believes they sit at its k = 2q, 2q+1, 2q+8, 2q+9. Any
//   permutation of k is exact as long as x's B fragment uses the same one: the thread loads
//   x[batch g][32q + 4s + 0..3] for those positions: its x for the group is 64 contiguous bytes
//   (four 16-byte loads through L1, where every warp of the SM finds x; the weights' cp.async.cg
//   bypasses L1, so they do not evict it).
// - INT4 -> bf16: (word >> 4p) & 0x000F000F | 0x43004300 is the bf16 pair (128 + u, 128 + u')
//   of nibbles p and p+4, which the stored interleave (quant_weight_only.cuh) makes the weights at
//   k and k+1 (bf16 has 7 mantissa bits, so only a nibble at bits 0..3 of each half can be OR-ed
//   in: the fp16 trick for nibbles at bits 4..7 would hit the exponent). The mask and the bits
//   come in as kernel arguments: as immediates ptxas split the expression into two LOP3s (read
//   off the SASS: 64 LOP3 per group where 32 do). At batch <= 8 the fragments keep 128 + u
//   (one shift and one LOP3 per pair) and the MMA result is corrected by 136 · sum(x) of the
//   group and batch row (q = u - 8 = (128 + u) - 136), which each block sums once into shared
//   memory while its first copies are in flight: 32 bf16x2 subtractions fewer per group and
//   warp. Exact: 128 + u and the products are exact, the sums fp32. At batch 16 the
//   subtraction stays (the sums of 16 rows would cost more than they save). INT8 goes through
//   fp32 (0x4B000000 | byte is 2^23 + byte; 5 instructions per pair).
//   Why the instructions matter: at 4.3 TB/s an SM must finish a 1 KiB INT4 group every ~62
//   cycles, ~250 issue slots of its 4 schedulers. The previous version's loop was 183 SASS
//   instructions per INT4 group (251 per 2 KiB INT8 group), and ncu measured 51% issue
//   utilization with ~12 warps per SM: instruction-bound, not bandwidth-bound.
// - Each group's 8 MMAs accumulate in a temporary (two, alternating, where a warp has a single
//   accumulator tile, to halve the dependent MMA chain) that is then scaled by the rows' group
//   scales into the fp32 result: the scale is applied once per group, in fp32.
//
// Bytes: N·K·bits/8 (weights) + N·K/128·2 (scales) + batch·K·2 (x) + batch·N·2 (y); FLOPs
// 2·batch·N·K. Ceiling: HBM bandwidth (the weights dominate the bytes). Runs on sm_80 and later.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <cuda_fp16.h>

#include "../common/mbarrier.cuh"
#include "../common/mma_sync.cuh"
#include "../common/quant_weight_only.cuh"
#include "weight_only_gemv_kernel.cuh"

namespace aisp::ch19 {
namespace {

constexpr int kGroup = common::kWeightOnlyGroup;
constexpr int kTileRows = 16;  // rows of one MMA A tile, the packed layout's row tile
// Small blocks, so that the SMs fill evenly: one or two row sets of kSplit warps each.
template <int kSplit>
constexpr int kWarpsPerBlock = 2 * kSplit;
// Groups whose x sums an INT4 block at batch <= 8 keeps in shared memory: K <= 8192.
constexpr int kFoldMaxGroups = 64;
constexpr int kPieceBytes = 16;  // one lane's load
constexpr int kWarpLoadBytes = 32 * kPieceBytes;

// Bytes of one packed (tile, group) chunk and its 16-byte loads per lane.
template <int kBits>
constexpr int kChunkBytes = (kTileRows * kGroup * kBits) / 8;
template <int kBits>
constexpr int kChunkLoads = kChunkBytes<kBits> / kWarpLoadBytes;  // 2 (INT4) or 4 (INT8)

__device__ __forceinline__ std::uint32_t bf16x2_bits(__nv_bfloat162 v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

// The two constants of the INT4 conversion, passed to the kernel as arguments: as compile-time
// immediates ptxas splits (w & mask) | bits into two LOP3s (a LOP3 takes one immediate); from
// registers it is one.
struct NibbleMagic {
  std::uint32_t mask;  // 0x000F000F: nibble p of each half after the shift
  std::uint32_t bits;  // 0x43004300: bf16 128.0 in each half, whose last 7 bits are mantissa
};

// Nibbles p and p+4 of an interleaved INT4 word as the bf16 pair (128 + u_k, 128 + u_k+1), u the
// stored nibble (q = u - 8): one shift and one LOP3.
__device__ __forceinline__ std::uint32_t int4_biased_pair(std::uint32_t word, int p,
                                                          NibbleMagic magic) {
  std::uint32_t biased;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;"  // (a & b) | c
      : "=r"(biased)
      : "r"(word >> (4 * p)), "r"(magic.mask), "r"(magic.bits));
  return biased;
}

// The same pair as (q_k, q_k+1): 136 subtracted (exact: small integers).
__device__ __forceinline__ std::uint32_t int4_pair(std::uint32_t word, int p, NibbleMagic magic) {
  const std::uint32_t biased = int4_biased_pair(word, p, magic);
  __nv_bfloat162 v;
  std::memcpy(&v, &biased, sizeof(v));
  return bf16x2_bits(__hsub2(v, __float2bfloat162_rn(136.0f)));
}

// Signed bytes b and b+1 of a word (byte index 0 or 2) as the bf16 pair.
__device__ __forceinline__ std::uint32_t int8_pair(std::uint32_t word, int first) {
  const std::uint32_t flipped = word ^ 0x80808080u;  // b + 128 as an unsigned byte
  const float lo = __uint_as_float(__byte_perm(flipped, 0x4B000000u, 0x7650 + first)) - 8388736.0f;
  const float hi =
      __uint_as_float(__byte_perm(flipped, 0x4B000000u, 0x7650 + first + 1)) - 8388736.0f;
  return bf16x2_bits(__floats2bfloat162_rn(lo, hi));
}

// One thread's part of one group for kRowTiles tiles: kWords 32-bit words per row (4 for INT4,
// 8 for INT8) of rows g (half 0) and g + 8 (half 1), and those rows' scales for the group.
template <int kBits, int kRowTiles>
struct Slice {
  static constexpr int kWords = kBits == 4 ? 4 : 8;
  std::uint32_t words[kRowTiles][2][kWords];
  std::uint32_t scales[kRowTiles];  // bf16 bits: row g's scale in the low half, row g + 8's high
};

// An L2 eviction policy that makes a line the first to go (createpolicy, sm_80+). The weights are
// read once: tagged evict-first, each L2 set gives up the lines of weights already read before
// anything else. Without it a read that misses may evict a dirty line instead, and its write-back
// shares HBM with the reads (the harness empties L2 before every sample by writing a buffer twice
// its size, which leaves L2 full of dirty lines).
__device__ __forceinline__ std::uint64_t l2_evict_first_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// cp.async of one lane's pieces of group `group` (kRowTiles chunks) into a stage of its warp's
// shared-memory ring. The ring mirrors the packed chunks byte for byte, so a lane reads back only
// the bytes it copied itself: the ring needs cp.async.wait_group but no warp or block barrier.
template <int kBits, int kRowTiles>
__device__ __forceinline__ void copy_group(std::uint32_t stage_lane_smem,
                                           const std::uint8_t* const (&lane_w)[kRowTiles],
                                           int group, std::uint64_t policy) {
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r) {
    const std::uint8_t* chunk = lane_w[r] + static_cast<std::size_t>(group) * kChunkBytes<kBits>;
#pragma unroll
    for (int v = 0; v < kChunkLoads<kBits>; ++v)
      // .cg: L2 only; the weights are read once and would only evict x from L1.
      asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
                       stage_lane_smem + r * kChunkBytes<kBits> + v * kWarpLoadBytes),
                   "l"(chunk + v * kWarpLoadBytes), "l"(policy)
                   : "memory");
  }
}

// The group's words of this lane from its stage (the scales come from load_scales).
template <int kBits, int kRowTiles>
__device__ __forceinline__ void read_slice(Slice<kBits, kRowTiles>& s,
                                           std::uint32_t stage_lane_smem) {
  constexpr int kPerHalf = kChunkLoads<kBits> / 2;
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r) {
#pragma unroll
    for (int v = 0; v < kChunkLoads<kBits>; ++v) {
      std::uint32_t* to = &s.words[r][v / kPerHalf][4 * (v % kPerHalf)];
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(to[0]), "=r"(to[1]), "=r"(to[2]), "=r"(to[3])
                   : "r"(stage_lane_smem + r * kChunkBytes<kBits> + v * kWarpLoadBytes)
                   : "memory");
    }
  }
}

// The rows' scales of one group: bf16 bits, row g's in the low half, row g + 8's in the high.
template <int kRowTiles>
__device__ __forceinline__ void load_scales(std::uint32_t (&to)[kRowTiles],
                                            const __nv_bfloat16* const (&row_scales)[kRowTiles][2],
                                            int group) {
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r)
    to[r] = static_cast<std::uint32_t>(__bfloat16_as_ushort(row_scales[r][0][group])) |
            static_cast<std::uint32_t>(__bfloat16_as_ushort(row_scales[r][1][group])) << 16;
}

// One thread's x of one group for its B fragments: 32 bf16 (4 × 16-byte loads, one 64-byte piece
// of an L1 line) per n8 tile.
template <int kTiles>
__device__ __forceinline__ void load_x(uint4 (&to)[kTiles][4],
                                       const __nv_bfloat16* const (&xs)[kTiles], int group) {
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
#pragma unroll
    for (int v = 0; v < 4; ++v)
      to[t][v] = __ldg(reinterpret_cast<const uint4*>(xs[t] + group * kGroup) + v);
}

// A fragment of step st of tile r: {row g: k+0,1 | row g+8: k+0,1 | row g: k+2,3 | row g+8:
// k+2,3} of the thread's k = 32q + 4st.
// kFoldBias (INT4 only): the fragment holds 128 + u, not q = u - 8; the caller subtracts
// 136 · sum(x) of the group from the MMA's result instead (see kFoldBias in the kernel).
template <int kBits, int kRowTiles, bool kFoldBias>
__device__ __forceinline__ void a_fragment(const Slice<kBits, kRowTiles>& s, int r, int st,
                                           NibbleMagic magic, std::uint32_t (&a)[4]) {
  if constexpr (kBits == 4) {
    const int word = st / 2, p = 2 * (st % 2);
    if constexpr (kFoldBias) {
      a[0] = int4_biased_pair(s.words[r][0][word], p, magic);
      a[1] = int4_biased_pair(s.words[r][1][word], p, magic);
      a[2] = int4_biased_pair(s.words[r][0][word], p + 1, magic);
      a[3] = int4_biased_pair(s.words[r][1][word], p + 1, magic);
    } else {
      a[0] = int4_pair(s.words[r][0][word], p, magic);
      a[1] = int4_pair(s.words[r][1][word], p, magic);
      a[2] = int4_pair(s.words[r][0][word], p + 1, magic);
      a[3] = int4_pair(s.words[r][1][word], p + 1, magic);
    }
  } else {
    a[0] = int8_pair(s.words[r][0][st], 0);
    a[1] = int8_pair(s.words[r][1][st], 0);
    a[2] = int8_pair(s.words[r][0][st], 2);
    a[3] = int8_pair(s.words[r][1][st], 2);
  }
}

// The sum of x[b][kGroup · grp + 32 · quarter .. + 31] over the four lanes of an aligned lane quad
// (quarter = lane % 4), for the folded bias term (136 · sum). Every lane of the warp must call it
// (the quad is summed by shuffles); a lane with valid == false adds 0.
__device__ __forceinline__ float group_x_sum_quad(const __nv_bfloat16* x, int k, int b, int grp,
                                                  int quarter, bool valid) {
  float sum = 0.0f;
  if (valid) {
    const uint4* src = reinterpret_cast<const uint4*>(x + static_cast<std::size_t>(b) * k +
                                                      grp * kGroup + 32 * quarter);
#pragma unroll
    for (int v = 0; v < 4; ++v) {
      const uint4 w = __ldg(src + v);
      const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        sum += __uint_as_float(words[i] << 16) + __uint_as_float(words[i] & 0xFFFF0000u);
    }
  }
  sum += __shfl_xor_sync(0xFFFFFFFFu, sum, 1);
  sum += __shfl_xor_sync(0xFFFFFFFFu, sum, 2);
  return sum;
}

// The accumulators of a warp's kRowTiles × kTiles MMA C fragments into y (batch-major, bf16),
// batch columns past `batch` skipped. C fragment: c0, c1 = row g, batch 8t + 2q (+1); c2, c3 =
// row g + 8. Shared by the ring and direct
// kernels' epilogues.
template <int kTiles, int kRowTiles>
__device__ __forceinline__ void store_y(const float (&acc)[kRowTiles][kTiles][4],
                                        __nv_bfloat16* __restrict__ y, int n, int batch,
                                        int first_tile, int g, int q) {
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int b = 8 * t + 2 * q + (e % 2);
        const int row = kTileRows * (first_tile + r) + g + 8 * (e / 2);
        if (b < batch)
          y[static_cast<std::size_t>(b) * n + row] = __float2bfloat16(acc[r][t][e]);
      }
}

// kTiles n8 tiles of batch (1: batch <= 8, 2: batch <= 16), kRowTiles 16-row tiles per warp,
// kSplit warps per row set, each over 1/kSplit of K (their partial sums meet in shared memory at
// the end), kStages groups in the warp's shared-memory ring (kStages - 1 in flight); kMinBlocks
// blocks per SM that the register cap guarantees.
template <int kBits, int kTiles, int kRowTiles, int kSplit, int kStages, int kMinBlocks>
__global__ void __launch_bounds__(32 * kWarpsPerBlock<kSplit>, kMinBlocks)
    weight_only_gemv(const std::uint8_t* __restrict__ w_packed,
                     const __nv_bfloat16* __restrict__ scales, const __nv_bfloat16* __restrict__ x,
                     __nv_bfloat16* __restrict__ y, int n, int k, int batch, NibbleMagic magic) {
  constexpr int kWarps = kWarpsPerBlock<kSplit>;
  // INT4 with one batch tile: the A fragments hold 128 + u straight from one LOP3 and the MMA
  // result is corrected by 136 · sum(x) per group and batch row, which the block sums once into
  // shared memory (x_sums) instead of 32 bf16x2 subtractions per group in every warp.
  constexpr bool kFoldBias = kBits == 4 && kTiles == 1;
  __shared__ float x_sums[kFoldBias ? kFoldMaxGroups : 1][8];
  constexpr int kSetsPerBlock = kWarps / kSplit;
  constexpr int kStageBytes = kRowTiles * kChunkBytes<kBits>;
  constexpr int kAccFloats = kRowTiles * kTiles * 4;  // one lane's C fragments
  static_assert(kSplit == 1 || kStages * kStageBytes >= 32 * kAccFloats * 4,
                "a warp's ring holds its partial sums at the end");
  __shared__ __align__(16) std::uint8_t ring[kWarps][kStages][kStageBytes];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int split = warp % kSplit;  // which 1/kSplit of K this warp sums
  const int first_tile = kRowTiles * (kSetsPerBlock * static_cast<int>(blockIdx.x) + warp / kSplit);
  // The last block's spare row sets skip the work but still meet the block barrier below.
  const bool active = first_tile < n / kTileRows;
  const int g = lane / 4, q = lane % 4;
  const int groups = k / kGroup;
  const int my_groups = groups / kSplit;  // the launcher checks that kSplit divides groups
  const int first_group = split * my_groups;
  const std::uint8_t* lane_w[kRowTiles];
  const __nv_bfloat16* row_scales[kRowTiles][2];
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r) {
    const int tile = active ? first_tile + r : 0;
    lane_w[r] = w_packed +
                (static_cast<std::size_t>(tile) * groups + first_group) * kChunkBytes<kBits> +
                kPieceBytes * lane;
    row_scales[r][0] =
        scales + static_cast<std::size_t>(kTileRows * tile + g) * groups + first_group;
    row_scales[r][1] = row_scales[r][0] + 8 * static_cast<std::size_t>(groups);
  }
  const auto lane_smem =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(&ring[warp][0][0])) + kPieceBytes * lane;
  // x rows of this thread's B fragments (batch index 8t + g). Beyond the batch a thread reads the
  // last row instead: B column j only reaches C column j, and columns >= batch are never stored,
  // so those values are harmless and the loads need no branch.
  const __nv_bfloat16* xs[kTiles];
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
    xs[t] =
        x + static_cast<std::size_t>(min(8 * t + g, batch - 1)) * k + 32 * q + first_group * kGroup;

  // Independent accumulator chains per group: two where the warp has one tile to multiply.
  constexpr int kChains = kRowTiles * kTiles == 1 ? 2 : 1;
  float acc[kRowTiles][kTiles][4] = {};
  if (active) {
    const std::uint64_t policy = l2_evict_first_policy();
    // Groups 0 .. kStages-2 in flight before the loop; one commit per group (empty ones too) so
    // that wait_group counts groups.
#pragma unroll
    for (int p = 0; p < kStages - 1; ++p) {
      if (p < my_groups)
        copy_group<kBits, kRowTiles>(lane_smem + p * kStageBytes, lane_w, p, policy);
      common::cp_async_commit();
    }
  }
  if constexpr (kFoldBias) {
    // 136 · sum of x[b][128 G .. 128 G + 127] for every group G and row b < batch, while the
    // first weight copies are in flight: four lanes per (G, b), 32 x each, then two shuffles.
    const int items = groups * batch * 4;
    for (int base = 32 * warp; base < items; base += 32 * kWarps) {
      const int item = base + lane;
      const int entry = item / 4, grp = entry / batch, b = entry % batch;
      const float sum = group_x_sum_quad(x, k, b, grp, item % 4, item < items);
      if (item < items && item % 4 == 0)
        x_sums[grp][b] = 136.0f * sum;
    }
    __syncthreads();
  }
  if (active) {
    // This thread's C columns (batch 2q, 2q + 1), clamped like its B rows.
    const int sum_col0 = min(2 * q, batch - 1), sum_col1 = min(2 * q + 1, batch - 1);
    const std::uint64_t policy = l2_evict_first_policy();
    int stage = 0;  // group % kStages
    // x and the scales run one group ahead in registers: loaded while the group before is
    // multiplied, they are there when the group's weights are (their L1/L2 latency would
    // otherwise follow every wait for the weights).
    uint4 x_next[kTiles][4];
    std::uint32_t scales_next[kRowTiles];
    load_x(x_next, xs, 0);
    load_scales(scales_next, row_scales, 0);
    for (int group = 0; group < my_groups; ++group) {
      // Refill the stage read in the previous iteration (its words are in registers and
      // consumed) with group + kStages - 1: kStages - 1 groups stay in flight.
      const int refill_stage = stage == 0 ? kStages - 1 : stage - 1;
      if (group + kStages - 1 < my_groups)
        copy_group<kBits, kRowTiles>(lane_smem + refill_stage * kStageBytes, lane_w,
                                     group + kStages - 1, policy);
      common::cp_async_commit();
      common::cp_async_wait<kStages -
                            1>();  // committed: kStages + group; group `group` is complete
      Slice<kBits, kRowTiles> cur;
      read_slice(cur, lane_smem + stage * kStageBytes);
      stage = stage == kStages - 1 ? 0 : stage + 1;
      uint4 xg[kTiles][4];
#pragma unroll
      for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int v = 0; v < 4; ++v)
          xg[t][v] = x_next[t][v];
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
        cur.scales[r] = scales_next[r];
      const int next = min(group + 1, my_groups - 1);  // the last group reloads its own
      load_x(x_next, xs, next);
      load_scales(scales_next, row_scales, next);
      float part[kChains][kRowTiles][kTiles][4] = {};
#pragma unroll
      for (int st = 0; st < 8; ++st) {
#pragma unroll
        for (int r = 0; r < kRowTiles; ++r) {
          std::uint32_t a[4];
          a_fragment<kBits, kRowTiles, kFoldBias>(cur, r, st, magic, a);
#pragma unroll
          for (int t = 0; t < kTiles; ++t) {
            const uint4& b = xg[t][st / 2];  // steps 2v, 2v + 1 read x[32q + 8v ..]: .x.y, .z.w
            common::mma_m16n8k16_bf16(part[st % kChains][r][t], a, st % 2 ? b.z : b.x,
                                      st % 2 ? b.w : b.y);
          }
        }
      }
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            float sum = part[0][r][t][e];
#pragma unroll
            for (int c = 1; c < kChains; ++c)
              sum += part[c][r][t][e];
            if constexpr (kFoldBias)
              sum -= x_sums[first_group + group][e % 2 ? sum_col1 : sum_col0];
            // bf16 -> fp32 is the bf16's bits in the high half of the word.
            const float scale =
                __uint_as_float(e / 2 ? cur.scales[r] & 0xFFFF0000u : cur.scales[r] << 16);
            acc[r][t][e] = fmaf(sum, scale, acc[r][t][e]);
          }
    }
  }
  if constexpr (kSplit > 1) {
    // Each warp leaves its partial sums in its own ring (all its copies have landed and been
    // read), [element][lane] so the stores and loads hit 32 distinct banks; the set's first warp
    // adds the others' after the barrier.
    common::cp_async_wait<0>();
    float* const mine = reinterpret_cast<float*>(&ring[warp][0][0]);
    if (split != 0) {
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            mine[((r * kTiles + t) * 4 + e) * 32 + lane] = acc[r][t][e];
    }
    __syncthreads();
    if (split != 0)
      return;
#pragma unroll
    for (int other = 1; other < kSplit; ++other) {
      const float* theirs = reinterpret_cast<const float*>(&ring[warp + other][0][0]);
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            acc[r][t][e] += theirs[((r * kTiles + t) * 4 + e) * 32 + lane];
    }
  }
  if (!active)
    return;
  store_y(acc, y, n, batch, first_tile, g, q);
}

// ---- The direct kernel (launch_weight_only_gemv_direct) ----------------------------------------
// The same packed weights, fragments and MMAs as above, without the shared-memory ring: each warp
// takes kChunkGroups consecutive 128-k groups of kRowTiles tiles, issues all their 16-byte loads
// into registers at once (ld.global.nc, L1 not allocated, L2 evict-first), then multiplies group
// by group while the later groups are still arriving; a block is one row set, its kSplit warps
// take the row set's chunks of K in turn and meet in shared memory at the end.
// What it tests against the ring kernel (issue 13): whether the bytes in flight are better held
// in registers by short blocks that the block scheduler hands out as SMs free up (896 or 1792
// blocks) than in cp.async rings by one wave of long blocks (448; ncu: 18% of SM cycles with no
// warp resident), with fewer instructions per byte: no cp.async bookkeeping or shared-memory
// round trip, and the INT4 bias (fragments hold 128 + u, q = u - 8) removed by the MMAs
// themselves: each group's two accumulator chains start with 8 MMAs of a constant -136 A fragment
// with the group's x (-136 * sum(x) per batch column, shared by the warp's row tiles), so no
// block-wide x sums, pre-pass or barrier. Exact to fp32 rounding as before.
// Measured (NVIDIA H200, graph replay, run 20261124-064730-2774): INT4 batch 1 21.9 us with two
// tiles per warp against the ring kernel's 21.8, batch 4 23.2 against 24.7; INT8 batch 1 as
// nibbles 34.5 against 33.3. Under ncu one tile per warp (chunks of 8 groups, 16 warps per SM)
// issued 6.85 M warp instructions for INT4 batch 1 (ring kernel: 7.40 M), at 28% issue
// utilization, its warps mostly waiting on their loads (L1TEX scoreboard). Two kernels with
// different instruction counts and work layouts landing within 1% of each other point at the
// latency each warp waits out (its bytes in flight: ~96-128 KiB per SM at a block's start, none
// while it multiplies), not at the instructions.
// bf16 -136.0 (INT4) and -2304.0 (INT8 as nibbles) in both halves: the A fragments of the bias
// MMAs. Both exact in bf16: 136 = 1.0625 * 2^7, 2304 = 1.125 * 2^11.
constexpr std::uint32_t kMinus136Pair = 0xC308C308u;
constexpr std::uint32_t kMinus2304Pair = 0xC510C510u;

// One lane's 16-byte piece of the packed weights: read once, so L1 is not allocated and the L2
// line is tagged evict-first (see l2_evict_first_policy).
__device__ __forceinline__ uint4 load_weight_piece(const std::uint8_t* at, std::uint64_t policy) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(at), "l"(policy));
  return v;
}

// load_x as volatile loads, which nvcc keeps in program order with the MMAs (also volatile);
// ptxas still hoists them, unless their address depends on the group before (x_mask in the
// kernel): hoisted, every group's x took more registers than the weights.
template <int kTiles>
__device__ __forceinline__ void
load_x_in_order(uint4 (&to)[kTiles][4], const __nv_bfloat16* const (&xs)[kTiles], int group) {
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
#pragma unroll
    for (int v = 0; v < 4; ++v)
      asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(to[t][v].x), "=r"(to[t][v].y), "=r"(to[t][v].z), "=r"(to[t][v].w)
                   : "l"(xs[t] + group * kGroup + 8 * v));
}

// kCount consecutive bf16 scales (2, 4 or 8: one 4-, 8- or 16-byte load) as 32-bit words.
template <int kCount>
__device__ __forceinline__ void load_scale_run(std::uint32_t (&to)[kCount / 2],
                                               const __nv_bfloat16* from) {
  if constexpr (kCount == 8) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(from));
    to[0] = v.x, to[1] = v.y, to[2] = v.z, to[3] = v.w;
  } else if constexpr (kCount == 4) {
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(from));
    to[0] = v.x, to[1] = v.y;
  } else {
    static_assert(kCount == 2, "2, 4 or 8 groups per chunk");
    to[0] = __ldg(reinterpret_cast<const unsigned int*>(from));
  }
}

// kTiles n8 tiles of batch, kRowTiles 16-row tiles per row set (= per block), kSplit warps per
// block taking the row set's chunks of kChunkGroups groups in turn; kMinBlocks blocks per SM that
// the register cap guarantees. kInt8Nibbles (INT8 only): the weights come packed by
// launch_weight_only_pack_int8_nibbles, each byte u = q + 128 taken as two nibbles (below).
template <int kBits, int kTiles, int kRowTiles, int kSplit, int kChunkGroups, int kMinBlocks,
          bool kInt8Nibbles = false>
__global__ void __launch_bounds__(32 * kSplit, kMinBlocks)
    weight_only_gemv_direct(const std::uint8_t* __restrict__ w_packed,
                            const __nv_bfloat16* __restrict__ scales,
                            const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
                            int n, int k, int batch, NibbleMagic magic) {
  static_assert(!kInt8Nibbles || kBits == 8, "the nibble form is INT8's");
  // A holds 128 + u; the bias MMAs remove the 136 (INT4) or, for INT8 as nibbles, the 2304.
  constexpr bool kFoldBias = kBits == 4 || kInt8Nibbles;
  constexpr std::uint32_t kBiasPair = kBits == 4 ? kMinus136Pair : kMinus2304Pair;
  constexpr int kLoads = kChunkLoads<kBits>, kPerHalf = kLoads / 2;
  constexpr int kAccFloats = kRowTiles * kTiles * 4;
  __shared__ float partials[kSplit > 1 ? kSplit - 1 : 1][kAccFloats][32];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int split = static_cast<int>(threadIdx.x / 32);
  const int first_tile = kRowTiles * static_cast<int>(blockIdx.x);
  const int g = lane / 4, q = lane % 4;
  const int groups = k / kGroup;
  const int chunks = groups / kChunkGroups;  // the launcher checks that kChunkGroups divides it
  const std::uint64_t policy = l2_evict_first_policy();

  const __nv_bfloat16* xs[kTiles];
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
    xs[t] = x + static_cast<std::size_t>(min(8 * t + g, batch - 1)) * k + 32 * q;

  float acc[kRowTiles][kTiles][4] = {};
  for (int chunk = split; chunk < chunks; chunk += kSplit) {
    const int first_group = chunk * kChunkGroups;
    // Every weight piece of the chunk first: kChunkGroups * kRowTiles * kLoads loads in flight.
    uint4 pieces[kChunkGroups][kRowTiles][kLoads];
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r) {
      const std::uint8_t* tile_w =
          w_packed +
          (static_cast<std::size_t>(first_tile + r) * groups + first_group) * kChunkBytes<kBits> +
          kPieceBytes * lane;
#pragma unroll
      for (int G = 0; G < kChunkGroups; ++G)
#pragma unroll
        for (int v = 0; v < kLoads; ++v)
          pieces[G][r][v] =
              load_weight_piece(tile_w + G * kChunkBytes<kBits> + v * kWarpLoadBytes, policy);
    }
    // The rows' scales for the chunk: row g's and row g + 8's, kChunkGroups each.
    std::uint32_t scale_words[kRowTiles][2][kChunkGroups / 2];
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        load_scale_run<kChunkGroups>(
            scale_words[r][h],
            scales + static_cast<std::size_t>(kTileRows * (first_tile + r) + g + 8 * h) * groups +
                first_group);
    // x of each group from L1 (every warp of the SM reads the same few KiB), loaded once the
    // group before has its sums (its weights arrived and its MMAs done). ptxas hoists independent
    // loads to the top, which here would keep every group's x in registers (16 per lane per group
    // at batch <= 8, twice a tile's weights), and so does a dependency on the previous group's x
    // or first MMA; the mask (-1 unless that sum is NaN: then this lane's batch column, the only
    // one its x reaches, is NaN anyway) ties the address to the whole previous group.
    uint4 x_next[kTiles][4];
    load_x_in_order(x_next, xs, first_group);
#pragma unroll
    for (int G = 0; G < kChunkGroups; ++G) {
      uint4 xg[kTiles][4];
#pragma unroll
      for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int v = 0; v < 4; ++v)
          xg[t][v] = x_next[t][v];
      // Two independent accumulator chains (even and odd MMA steps), each starting with its half
      // of the bias MMAs (-136 or -2304 * sum(x) per batch column, INT4 / INT8 as nibbles;
      // computed once for the warp's row tiles): 8 dependent MMAs per chain, against 16 in one
      // chain in visit 1's version.
      float bias[2][kTiles][4] = {};
      if constexpr (kFoldBias) {
        const std::uint32_t minus136[4] = {kBiasPair, kBiasPair, kBiasPair, kBiasPair};
#pragma unroll
        for (int st = 0; st < 8; ++st)
#pragma unroll
          for (int t = 0; t < kTiles; ++t) {
            const uint4& b = xg[t][st / 2];
            common::mma_m16n8k16_bf16(bias[st % 2][t], minus136, st % 2 ? b.z : b.x,
                                      st % 2 ? b.w : b.y);
          }
      }
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r) {
        // Each chain continues its bias chain: 2 chains of 8 dependent MMAs, no more registers.
        float chains[2][kTiles][4];
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
          for (int t = 0; t < kTiles; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e)
              chains[c][t][e] = bias[c][t][e];
        // This lane's words of rows g (h = 0) and g + 8 (h = 1) for the group.
        std::uint32_t words[2][kLoads * 2];
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int j = 0; j < kPerHalf; ++j) {
            const uint4& v = pieces[G][r][h * kPerHalf + j];
            words[h][4 * j + 0] = v.x, words[h][4 * j + 1] = v.y;
            words[h][4 * j + 2] = v.z, words[h][4 * j + 3] = v.w;
          }
        // INT8 as nibbles: the high nibbles' products, weighted 16 at the end of the group.
        float part_high[2][kTiles][4] = {};
#pragma unroll
        for (int st = 0; st < 8; ++st) {
          std::uint32_t a[4];
          if constexpr (kInt8Nibbles) {
            // Word st holds k = 32q + 4st + {0, 2, 1, 3} as bytes u = q + 128: nibble pairs
            // p = 0 / 2 are the low nibbles of (k, k+1) / (k+2, k+3), p = 1 / 3 the high ones.
            std::uint32_t a_high[4];
            a[0] = int4_biased_pair(words[0][st], 0, magic);
            a[1] = int4_biased_pair(words[1][st], 0, magic);
            a[2] = int4_biased_pair(words[0][st], 2, magic);
            a[3] = int4_biased_pair(words[1][st], 2, magic);
            a_high[0] = int4_biased_pair(words[0][st], 1, magic);
            a_high[1] = int4_biased_pair(words[1][st], 1, magic);
            a_high[2] = int4_biased_pair(words[0][st], 3, magic);
            a_high[3] = int4_biased_pair(words[1][st], 3, magic);
#pragma unroll
            for (int t = 0; t < kTiles; ++t) {
              const uint4& b = xg[t][st / 2];
              common::mma_m16n8k16_bf16(part_high[st % 2][t], a_high, st % 2 ? b.z : b.x,
                                        st % 2 ? b.w : b.y);
            }
          } else if constexpr (kBits == 4) {
            const int word = st / 2, p = 2 * (st % 2);
            a[0] = int4_biased_pair(words[0][word], p, magic);
            a[1] = int4_biased_pair(words[1][word], p, magic);
            a[2] = int4_biased_pair(words[0][word], p + 1, magic);
            a[3] = int4_biased_pair(words[1][word], p + 1, magic);
          } else {
            a[0] = int8_pair(words[0][st], 0);
            a[1] = int8_pair(words[1][st], 0);
            a[2] = int8_pair(words[0][st], 2);
            a[3] = int8_pair(words[1][st], 2);
          }
#pragma unroll
          for (int t = 0; t < kTiles; ++t) {
            const uint4& b = xg[t][st / 2];  // steps 2v, 2v + 1 read x[32q + 8v ..]: .x.y, .z.w
            common::mma_m16n8k16_bf16(chains[st % 2][t], a, st % 2 ? b.z : b.x, st % 2 ? b.w : b.y);
          }
        }
        float part[kTiles][4];
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            part[t][e] = chains[0][t][e] + chains[1][t][e];
        if constexpr (kInt8Nibbles) {
          // q = u - 128 = 16 (128 + h) + (128 + l) - 2304: part holds the low nibbles' sum
          // minus 2304 sum(x).
#pragma unroll
          for (int t = 0; t < kTiles; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e)
              part[t][e] = fmaf(16.0f, part_high[0][t][e] + part_high[1][t][e], part[t][e]);
        }
        // Scale once per group, in fp32: c0, c1 belong to row g, c2, c3 to row g + 8.
        const std::uint32_t lo = scale_words[r][0][G / 2], hi = scale_words[r][1][G / 2];
        const float scale_g = __uint_as_float(G % 2 ? lo & 0xFFFF0000u : lo << 16);
        const float scale_g8 = __uint_as_float(G % 2 ? hi & 0xFFFF0000u : hi << 16);
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            acc[r][t][e] = fmaf(part[t][e], e / 2 ? scale_g8 : scale_g, acc[r][t][e]);
        if (r == 0 && G + 1 < kChunkGroups) {
          // The next group's x, its address tied to this group's sums (see x_next).
          const int x_mask = part[0][0] != part[0][0] ? 0 : -1;
          load_x_in_order(x_next, xs, (first_group + G + 1) & x_mask);
        }
      }
    }
  }
  if constexpr (kSplit > 1) {
    if (split != 0) {
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            partials[split - 1][(r * kTiles + t) * 4 + e][lane] = acc[r][t][e];
    }
    __syncthreads();
    if (split != 0)
      return;
#pragma unroll
    for (int other = 0; other < kSplit - 1; ++other)
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
        for (int t = 0; t < kTiles; ++t)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            acc[r][t][e] += partials[other][(r * kTiles + t) * 4 + e][lane];
  }
  store_y(acc, y, n, batch, first_tile, g, q);
}

// ---- The bulk kernel (launch_weight_only_gemv_bulk) --------------------------------------------
// INT4, batch 1..2. Persistent blocks, kBlocksPerSm per SM (the grid sized to the SM count), each
// owning an equal run of whole 16-row tiles: with the packed layout a block's weights are ONE
// contiguous run of bytes (~222 KiB per block for the INT4 layer), which a single thread streams
// with the copy engine (cp.async.bulk, L2 evict-first, completing on an mbarrier per stage) into a
// ring of kStages stages of kWarps · kChunksPerWarp 1 KiB chunks. Every SM streams the same bytes
// to within one tile (13 or 14 of 1792 tiles per SM: no tail wave).
// A stage holds kStageChunks consecutive 128-k groups of one tile (the launcher requires the
// groups per row to be a multiple of it), so the tile and group of every chunk follow from a
// counter, with no division. Consumer warp w takes chunks kChunksPerWarp·w .. +kChunksPerWarp-1
// of each stage (adjacent groups: their scales are one 32-bit load per row): two independent MMA
// chains per warp, the per-stage bookkeeping paid once for both. The stage is handed back (one
// arrival per warp on its empty barrier) once the warp's MMAs have consumed the words it loaded.
//
// Where the time goes, and why this form: the copy ring alone (the same producer, consumers that
// only touch one word per stage) streams the 58.7 MB INT4 layer in 14.7 us on the H200 (with PDL
// 14.8-15.5 us, or 13.1-13.4 where each SM has room for the next call's block; the README's "where
// the time goes"), while the previous consumer (bf16 magic, x
// through L1, shared-memory float atomics per tile) took 22.2 us with 244 SASS instructions per
// stage, 112 of them the dequantization. The consumers' instruction stream is the limit, so this
// version cuts it:
// - fp16 instead of bf16 fragments. fp16 has 10 mantissa bits, so a nibble can be OR-ed into
//   1024.0 (0x6400) at bits 0..3 OR at bits 4..7: (w & 0x000F000F) | 0x64006400 is the fp16 pair
//   (1024 + u, 1024 + u') of nibbles 0 and 4 ("lo", pair 0), (w & 0x00F000F0) | 0x64006400 the
//   pair (1024 + 16u, 1024 + 16u') of nibbles 1 and 5 ("hi", pair 1), and with one shift
//   w8 = w >> 8 the same two LOP3s give pairs 2 (lo) and 3 (hi): 5 instructions per word for its
//   four pairs instead of 7 (one shift and one LOP3 per pair).
// - The ×16 of the "hi" pairs is compensated in x, not in the weights: in each MMA step the hi
//   pair sits at MMA k 2q+8, 2q+9 (a2, a3), which the permuted k maps to x[... + 2..3] of every
//   4 (k with (k >> 1) & 1 == 1). The block keeps an fp16 copy of x in shared memory with those
//   positions divided by 16 (exact: a power of two). An MMA then sums (1024 + u)·x (lo) and
//   (1024 + 16u)·x/16 = (64 + u)·x (hi); with q = u - 8 that is (1032 + q)·x and 1152·(x/16) +
//   q·x, so the bias to remove per group and batch row is 1032·Σ_lo x16 + 1152·Σ_hi (x16/16),
//   summed once per block from the fp16 values the MMAs use.
// - x to fp16 exactly: x is bf16 (8-bit significand, which fits fp16's 11) but its range does
//   not fit fp16's. The block scales x by 2^s, chosen per call from amax|x| so that amax·2^s lies
//   in [2^14, 2^15) (fp16's largest finite value is 65504), and y is multiplied by 2^-s at the
//   end. Every x within 2^28 of amax (lo positions) or 2^24 (hi positions, divided by 16) then
//   converts exactly (fp16 normals reach 2^-14); smaller ones become fp16 subnormals or zero,
//   contributing less than 2^-24 of amax each. amax = 0 gives s = 0; s is clamped to
//   [-122, 126] (x non-finite or below 2^-111 in amax: outside what this kernel is for).
// - x from shared memory: the B fragments are four LDS.128 per group from the fp16 copy (the
//   layout pads 16 bytes after each 64 k so a quad's four 64-byte runs hit distinct banks, and
//   the rows of batch 2 sit 32 bytes apart modulo 128), not LDG through L1 per chunk.
// - One MMA chain per group (8 steps) that starts from the bias: the prologue stores the C
//   fragment {-b0, -b1, -b0, -b1} per group, loaded as the chain's initial value (one LDS.128),
//   so nothing is subtracted afterwards.
// - No shared-memory float atomics (compiled as CAS loops): each warp writes its sums of a tile
//   to its own slots with plain (predicated) stores; the block adds the kWarps slots of each row
//   at the end.
// - The stage loop unrolled by kStages: ring offsets are immediates, the parity a flipping bit;
//   the nibble masks are LOP3 immediates (1024.0's bits from a register), and the x, scale, bias
//   and slot addresses advance by one add per stage instead of being recomputed.
// Precision: the MMA sums (1032 + q)·x16 against 136 + q before, so ~3 more bits cancel in the
// fp32 accumulation when the bias is removed; the result is still far more precise than the bf16
// rounding of y (the pair's relative RMS error is dominated by that rounding).
// PDL (launch_weight_only_gemv_bulk's programmatic_launch): each block lets the next launch start
// at once (griddepcontrol.launch_dependents), and its producer starts the weight and scale copies
// without waiting; the consumers read x (a previous kernel's output in a layer chain) and write
// y only after griddepcontrol.wait, i.e. once the grid before has completed and its writes are
// visible. Two blocks fill an SM's registers, so the next call's blocks start only where one of
// this call's has exited: its ramp overlaps this call's tail. Launched without the attribute, both
// instructions do nothing.
// Measured (NVIDIA H200, graph replay, run 20261124-132900-5c35): int4_b1 19.09 us, with PDL
// 16.99 us (0.81 of 4275 GB/s on the weight bytes); the wide layer with PDL 31.00 us. SASS: 150.75
// instructions per 16 KiB stage (the bf16 consumer: 244).
// Bytes: N·K/2 (weights) + N·K/128·2 (scales) + batch·K·2 (x, read twice per block from L2) +
// batch·N·2 (y); FLOPs 2·batch·N·K. Ceiling: HBM bandwidth on the weight bytes (4275 GB/s copy
// ceiling, ANCHORS; the same ring with idle consumers: 14.7 us for the INT4 layer).
constexpr int kBulkMaxBatch = 2;
constexpr int kXGroupBytes = 2 * kGroup + 32;  // one group of fp16 x: 256 bytes + 2 pads of 16

// Global -> this CTA's shared memory, `bytes` (a multiple of 16, both addresses 16-byte aligned)
// completing on `bar`; the L2 lines tagged with `policy` (evict-first here, like the other
// kernels' weights; measured neutral for this kernel: 22.1 us without the hint against 22.2 with
// it, int4_b1, run 20261124-091514-6b9d).
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, std::uint32_t bytes,
                                          std::uint64_t* bar, std::uint64_t policy) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint "
               "[%0], [%1], %2, [%3], %4;" ::"r"(common::shared_address(dst)),
               "l"(src), "r"(bytes), "r"(common::shared_address(bar)), "l"(policy)
               : "memory");
}

// Byte offset of fp16 x[b][k] (k a multiple of 8: one 16-byte piece) in the block's copy: per
// group 4 runs of 32 k (one per lane quad position q) at 0, 64, 144, 208 (a 16-byte pad after
// runs 1 and 3), so that the four 16-byte pieces a quad reads at once fall in distinct banks.
__device__ __forceinline__ int x16_offset(int b, int k, int row_stride) {
  const int grp = k / kGroup, quarter = (k % kGroup) / 32;
  return b * row_stride + grp * kXGroupBytes + 64 * quarter + 16 * (quarter / 2) + 2 * (k % 32);
}

// The block's shared memory (dynamic): barriers, the ring, the block's scales, the fp16 x copy
// ([batch][group], padded), the bias terms ([group][batch] fp32), each warp's slots of y (fp32,
// [warp][tile][row][batch]), and a per-warp scratch word for the amax reduction.
struct BulkLayout {
  int ring, scales, x16, x_row_stride, bias, slots, scratch, bytes;
  __host__ __device__ BulkLayout(int stage_bytes, int stages, int max_tiles, int groups, int batch,
                                 int warps) {
    const auto up = [](int v) { return (v + 127) / 128 * 128; };
    ring = up((2 * stages + 1) * 8);
    scales = ring + up(stage_bytes * stages);
    x16 = scales + up(max_tiles * kTileRows * groups * 2);
    x_row_stride = groups * kXGroupBytes;
    x_row_stride += (32 - x_row_stride % 128 + 128) % 128;  // rows 32 bytes apart modulo 128
    bias = x16 + up(batch * x_row_stride);
    slots = bias + up(groups * 16);  // [group][4]: the C fragment that starts a group's chain
    scratch = slots + up(warps * max_tiles * kTileRows * batch * 4);
    bytes = scratch + up(warps * 4);
  }
};

// Shared-memory loads from a 32-bit shared address kept in one register (advanced per stage).
// volatile keeps them after the prologue's barrier (itself volatile asm) in the compiler's order;
// no "memory" clobber, so other accesses may still move around them.
__device__ __forceinline__ uint4 ld_shared_v4(std::uint32_t address) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
  return v;
}

__device__ __forceinline__ std::uint32_t ld_shared_u32(std::uint32_t address) {
  std::uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}

// (w & kMask) | bits in one LOP3 with the mask as its immediate.
template <std::uint32_t kMask>
__device__ __forceinline__ std::uint32_t masked_or(std::uint32_t w, std::uint32_t bits) {
  std::uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(r) : "r"(w), "n"(kMask), "r"(bits));
  return r;
}

template <int kWarps, int kChunksPerWarp, int kStages, int kBlocksPerSm, int kBatch>
__global__ void __launch_bounds__(32 * (kWarps + 1), kBlocksPerSm)
    weight_only_gemv_bulk(const std::uint8_t* __restrict__ w_packed,
                          const __nv_bfloat16* __restrict__ scales,
                          const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int n,
                          int k, int max_tiles, std::uint32_t half2_1024) {
  static_assert(kChunksPerWarp == 2, "adjacent pairs of groups per warp (one scale load per row)");
  static_assert(kBatch >= 1 && kBatch <= kBulkMaxBatch, "columns 0..1: lanes with q == 0");
  constexpr int kChunk = kChunkBytes<4>;  // 1 KiB: 16 rows x 128 k
  constexpr int kStageChunks = kWarps * kChunksPerWarp;
  constexpr int kStageBytes = kStageChunks * kChunk;
  constexpr int kConsumers = 32 * kWarps;
  extern __shared__ __align__(128) std::uint8_t smem[];
  const int groups = k / kGroup;
  const BulkLayout layout(kStageBytes, kStages, max_tiles, groups, kBatch, kWarps);
  auto* const full = reinterpret_cast<std::uint64_t*>(smem);
  std::uint64_t* const empty = full + kStages;
  std::uint64_t* const scales_ready = empty + kStages;
  std::uint8_t* const ring = smem + layout.ring;
  std::uint8_t* const x16 = smem + layout.x16;
  auto* const bias = reinterpret_cast<float*>(smem + layout.bias);  // [group][4]: the C init
  auto* const slots = reinterpret_cast<float*>(smem + layout.slots);
  auto* const scratch = reinterpret_cast<std::uint32_t*>(smem + layout.scratch);

  const int tiles = n / kTileRows;
  const int tile_begin = static_cast<int>(static_cast<long long>(blockIdx.x) * tiles / gridDim.x);
  const int tile_end = static_cast<int>(static_cast<long long>(blockIdx.x + 1) * tiles / gridDim.x);
  const int stages_per_tile = groups / kStageChunks;
  const int rounds = (tile_end - tile_begin) * stages_per_tile;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);

  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&full[s], 1);
      common::mbarrier_init(&empty[s], kWarps);
    }
    common::mbarrier_init(scales_ready, 1);
    common::mbarrier_init_fence();
  }
  __syncthreads();

  if (warp == kWarps) {
    // The producer: one thread streams the block's run of bytes through the ring.
    if (lane == 0 && rounds > 0) {
      const std::uint64_t policy = l2_evict_first_policy();
      const std::uint32_t scale_bytes =
          static_cast<std::uint32_t>((tile_end - tile_begin) * kTileRows * groups * 2);
      common::mbarrier_arrive_expect_tx(scales_ready, scale_bytes);
      bulk_copy(smem + layout.scales,
                scales + static_cast<std::size_t>(tile_begin) * kTileRows * groups, scale_bytes,
                scales_ready, policy);
      const std::uint8_t* from = w_packed + static_cast<std::size_t>(tile_begin) * groups * kChunk;
      for (int j = 0; j < rounds; ++j, from += kStageBytes) {
        const int s = j % kStages;
        if (j >= kStages)
          common::mbarrier_wait_parity(&empty[s], ((j / kStages) - 1) & 1);
        common::mbarrier_arrive_expect_tx(&full[s], kStageBytes);
        bulk_copy(ring + s * kStageBytes, from, kStageBytes, &full[s], policy);
      }
    }
    return;  // the consumers' barriers below are named ones of kWarps warps
  }

  // The consumers: x and y only once the grid before has completed (PDL; a no-op otherwise).
  asm volatile("griddepcontrol.wait;" ::: "memory");
  // amax|x| over the whole batch: the bits of a non-negative bf16 order as integers.
  const int pieces = kBatch * k / 8;  // 16-byte pieces of x: 8 bf16
  const uint4* const x_pieces = reinterpret_cast<const uint4*>(x);
  {
    std::uint32_t amax2 = 0;  // two 16-bit maxima
    for (int i = static_cast<int>(threadIdx.x); i < pieces; i += kConsumers) {
      const uint4 v = __ldg(x_pieces + i);
      amax2 = __vmaxu2(amax2, v.x & 0x7FFF7FFFu);
      amax2 = __vmaxu2(amax2, v.y & 0x7FFF7FFFu);
      amax2 = __vmaxu2(amax2, v.z & 0x7FFF7FFFu);
      amax2 = __vmaxu2(amax2, v.w & 0x7FFF7FFFu);
    }
    const std::uint32_t amax = __reduce_max_sync(0xFFFFFFFFu, max(amax2 & 0xFFFFu, amax2 >> 16));
    if (lane == 0)
      scratch[warp] = amax;
  }
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumers) : "memory");
  std::uint32_t amax = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w)
    amax = max(amax, scratch[w]);
  // amax in [2^(e-127), 2^(e-126)): 2^s puts it in [2^14, 2^15).
  const int exponent = static_cast<int>(amax >> 7);
  const int s = amax == 0 ? 0 : min(126, max(-122, 141 - exponent));
  const float to_lo = __uint_as_float(static_cast<std::uint32_t>(127 + s) << 23);      // 2^s
  const float to_hi = __uint_as_float(static_cast<std::uint32_t>(127 + s - 4) << 23);  // 2^(s-4)
  const float from_scaled = __uint_as_float(static_cast<std::uint32_t>(127 - s) << 23);
  // The fp16 copy of x and, per group, the negated bias 1032·Σ_lo + 1152·Σ_hi of each batch row
  // over the converted values (16 consecutive pieces are one group: a half warp), stored as the
  // C fragment that starts the group's MMA chain: {-b0, -b1, -b0, -b1} (batch 1: -b0 everywhere).
  for (int i = static_cast<int>(threadIdx.x); i < pieces; i += kConsumers) {
    const int b = i / (k / 8), k0 = 8 * (i % (k / 8));
    const uint4 v = __ldg(x_pieces + i);
    const std::uint32_t words[4] = {v.x, v.y, v.z, v.w};
    std::uint32_t halves[4];
    float lo_sum = 0.0f, hi_sum = 0.0f;
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      const float scale = w % 2 ? to_hi : to_lo;  // k0 + 2w, +1: hi when w is odd
      const __half2 h = __floats2half2_rn(__uint_as_float(words[w] << 16) * scale,
                                          __uint_as_float(words[w] & 0xFFFF0000u) * scale);
      const float2 back = __half22float2(h);
      (w % 2 ? hi_sum : lo_sum) += back.x + back.y;
      std::memcpy(&halves[w], &h, sizeof(h));
    }
    *reinterpret_cast<uint4*>(x16 + x16_offset(b, k0, layout.x_row_stride)) =
        make_uint4(halves[0], halves[1], halves[2], halves[3]);
    float sum = 1032.0f * lo_sum + 1152.0f * hi_sum;
#pragma unroll
    for (int m = 1; m < 16; m *= 2)
      sum += __shfl_xor_sync(0xFFFFFFFFu, sum, m);
    if (lane % 16 == 0) {
      float* const quad = bias + 4 * (k0 / kGroup);
      if constexpr (kBatch == 1) {
        *reinterpret_cast<float4*>(quad) = make_float4(-sum, -sum, -sum, -sum);
      } else {
        quad[b] = -sum;
        quad[b + 2] = -sum;
      }
    }
  }
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumers) : "memory");

  const int g = lane / 4, q = lane % 4;
  if (rounds > 0)
    common::mbarrier_wait_parity(scales_ready, 0);

  int group = kChunksPerWarp * warp;  // this warp's first group in the current stage
  // Shared-memory byte addresses, advanced per stage: this lane's x (B column g, clamped:
  // columns >= kBatch are never stored) of the warp's first group in the stage; row g's scales of
  // it; its bias quad; this lane's slot of row g in the current tile.
  std::uint32_t x_address = common::shared_address(x16) +
                            x16_offset(min(g, kBatch - 1), 32 * q, layout.x_row_stride) +
                            group * kXGroupBytes;
  std::uint32_t scale_address =
      common::shared_address(smem + layout.scales) + 2 * (g * groups + group);
  std::uint32_t bias_address = common::shared_address(bias) + 16 * group;
  std::uint32_t slot_address =
      common::shared_address(slots) + 4 * (warp * max_tiles * kTileRows * kBatch + g * kBatch);
  const std::uint32_t lane_ring =
      common::shared_address(ring) + warp * kChunksPerWarp * kChunk + kPieceBytes * lane;
  const std::uint32_t is_slot_lane = q == 0 ? 1u : 0u;
  // acc[e]: rows g (e < 2), g + 8; columns 2q + e % 2 (only lanes q == 0 hold batch columns).
  float acc[4] = {};
  std::uint32_t parity = 0;
  for (int base = 0; base < rounds; base += kStages, parity ^= 1) {
#pragma unroll
    for (int st_ring = 0; st_ring < kStages; ++st_ring) {
      if (base + st_ring < rounds) {
        uint4 xg[kChunksPerWarp][4];
        float chains[kChunksPerWarp][4];
#pragma unroll
        for (int c = 0; c < kChunksPerWarp; ++c) {
#pragma unroll
          for (int v = 0; v < 4; ++v)
            xg[c][v] = ld_shared_v4(x_address + c * kXGroupBytes + 16 * v);
          const uint4 quad = ld_shared_v4(bias_address + 16 * c);
          chains[c][0] = __uint_as_float(quad.x);
          chains[c][1] = __uint_as_float(quad.y);
          chains[c][2] = __uint_as_float(quad.z);
          chains[c][3] = __uint_as_float(quad.w);
        }
        // Rows g and g + 8, both groups: one 32-bit load per row (group is even).
        const std::uint32_t scale_lo = ld_shared_u32(scale_address);
        const std::uint32_t scale_hi = ld_shared_u32(scale_address + 16 * groups);

        common::mbarrier_wait_parity(&full[st_ring], parity);
        std::uint32_t words[kChunksPerWarp][2][4];
#pragma unroll
        for (int c = 0; c < kChunksPerWarp; ++c)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            std::uint32_t* to = words[c][h];
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(to[0]), "=r"(to[1]), "=r"(to[2]), "=r"(to[3])
                         : "r"(lane_ring + st_ring * kStageBytes + c * kChunk + h * kWarpLoadBytes)
                         : "memory");
          }
#pragma unroll
        for (int c = 0; c < kChunksPerWarp; ++c)
#pragma unroll
          for (int word = 0; word < 4; ++word) {
            const std::uint32_t w0 = words[c][0][word], w1 = words[c][1][word];
            const std::uint32_t w0_8 = w0 >> 8, w1_8 = w1 >> 8;
            const uint4& b = xg[c][word];  // x[32q + 8·word ..]: .x lo, .y hi, .z lo, .w hi
            // Step 2·word: pairs 0 (lo) and 1 (hi); step 2·word + 1: pairs 2 and 3 (from w >> 8).
            const std::uint32_t a_even[4] = {
                masked_or<0x000F000Fu>(w0, half2_1024), masked_or<0x000F000Fu>(w1, half2_1024),
                masked_or<0x00F000F0u>(w0, half2_1024), masked_or<0x00F000F0u>(w1, half2_1024)};
            common::mma_m16n8k16_f16(chains[c], a_even, b.x, b.y);
            const std::uint32_t a_odd[4] = {
                masked_or<0x000F000Fu>(w0_8, half2_1024), masked_or<0x000F000Fu>(w1_8, half2_1024),
                masked_or<0x00F000F0u>(w0_8, half2_1024), masked_or<0x00F000F0u>(w1_8, half2_1024)};
            common::mma_m16n8k16_f16(chains[c], a_odd, b.z, b.w);
          }
        // Every word of the stage that this warp reads has been consumed above: hand the stage
        // back (the arrive, a release, orders those reads before the producer's next copy). In
        // the SASS ptxas issues it right after the stage's LDS, before the words are used: the
        // release semantics, not the source position, are what keep the refill behind the reads.
        __syncwarp();
        if (lane == 0)
          common::mbarrier_arrive(&empty[st_ring]);
#pragma unroll
        for (int c = 0; c < kChunksPerWarp; ++c) {
          // bf16 -> fp32 is the bf16's bits in the high half of the word.
          const float s_lo = __uint_as_float(c ? scale_lo & 0xFFFF0000u : scale_lo << 16);
          const float s_hi = __uint_as_float(c ? scale_hi & 0xFFFF0000u : scale_hi << 16);
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (e % 2 < kBatch)  // column 1 only at batch 2
              acc[e] = fmaf(chains[c][e], e / 2 ? s_hi : s_lo, acc[e]);
        }
        group += kStageChunks;
        x_address += kStageChunks * kXGroupBytes;
        scale_address += 2 * kStageChunks;
        bias_address += 16 * kStageChunks;
        if (group >= groups) {
          // The stages move on to the next tile: this warp's sums of this one into its slots
          // (rows g, g + 8; lanes q == 0 hold columns 0 and 1).
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (e % 2 < kBatch)
              asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\t"
                           "@p st.shared.f32 [%0], %1;\n\t}" ::"r"(
                               slot_address + 4 * (8 * kBatch * (e / 2) + e % 2)),
                           "f"(acc[e]), "r"(is_slot_lane)
                           : "memory");
#pragma unroll
          for (int e = 0; e < 4; ++e)
            acc[e] = 0.0f;
          group -= groups;
          x_address -= groups * kXGroupBytes;
          scale_address += 2 * (kTileRows - 1) * groups;  // row g of the next tile
          bias_address -= 16 * groups;
          slot_address += 4 * kTileRows * kBatch;
        }
      }
    }
  }
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumers) : "memory");
  // y (batch-major): row index fastest, so the stores of a warp are contiguous; each the sum of
  // the kWarps warps' slots, scaled back by 2^-s.
  const int rows = (tile_end - tile_begin) * kTileRows;
  const int warp_stride = max_tiles * kTileRows * kBatch;
  for (int i = static_cast<int>(threadIdx.x); i < rows * kBatch; i += kConsumers) {
    const int b = i / rows, row = i % rows;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      sum += slots[w * warp_stride + row * kBatch + b];
    y[static_cast<std::size_t>(b) * n + tile_begin * kTileRows + row] =
        __float2bfloat16(sum * from_scaled);
  }
}

// The packed layout (weight_only_gemv_kernel.cuh) from the stored one, one 16-byte piece per
// thread: piece index = ((tile · groups + group) · loads + v) · 32 + lane, so the writes are
// contiguous; each reads 16 bytes of one stored row.
// kInt8Nibbles: each 32-bit word of an INT8 piece also rewritten as bytes u = q + 128 in the
// order k + {0, 2, 1, 3}, so that the direct kernel's nibble pairs (bits 4p.., 16 + 4p..) are the
// nibbles of the weights at (k, k + 1) or (k + 2, k + 3).
template <int kBits, bool kInt8Nibbles = false>
__global__ void __launch_bounds__(256)
    weight_only_pack(const std::uint8_t* __restrict__ w, int n, int k,
                     std::uint8_t* __restrict__ w_packed) {
  constexpr int kLoads = kChunkLoads<kBits>, kPerHalf = kLoads / 2;
  const int groups = k / kGroup;
  const std::size_t pieces = static_cast<std::size_t>(n / kTileRows) * groups * kLoads * 32;
  const std::size_t row_bytes = common::weight_only_row_bytes(kBits, k);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < pieces;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int lane = static_cast<int>(i % 32);
    const int v = static_cast<int>((i / 32) % kLoads);
    const std::size_t chunk = i / (32 * kLoads);  // tile · groups + group
    const int group = static_cast<int>(chunk % groups);
    const std::size_t tile = chunk / groups;
    const std::size_t row = kTileRows * tile + lane / 4 + 8 * (v / kPerHalf);
    const std::size_t at = static_cast<std::size_t>(group) * (kGroup * kBits / 8) +
                           (lane % 4) * (32 * kBits / 8) + kPieceBytes * (v % kPerHalf);
    uint4 piece = __ldg(reinterpret_cast<const uint4*>(w + row * row_bytes + at));
    if constexpr (kInt8Nibbles) {
      const auto recode = [](std::uint32_t word) {
        return __byte_perm(word ^ 0x80808080u, 0u, 0x3120);  // bytes k+0, k+2, k+1, k+3
      };
      piece = make_uint4(recode(piece.x), recode(piece.y), recode(piece.z), recode(piece.w));
    }
    reinterpret_cast<uint4*>(w_packed)[i] = piece;
  }
}

// W -> bf16, 8 weights per thread (one 32-bit INT4 word or 8 INT8 bytes), w = q · scale rounded
// once from fp32. Reads the stored (row-major) layout.
template <int kBits>
__global__ void __launch_bounds__(256)
    weight_only_dequantize(const std::uint8_t* __restrict__ w,
                           const __nv_bfloat16* __restrict__ scales, int n, int k,
                           __nv_bfloat16* __restrict__ out) {
  const std::size_t chunks = static_cast<std::size_t>(n) * (k / 8);
  const int groups = k / kGroup;
  for (std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < chunks;
       c += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t row = c / (k / 8);
    const int k0 = static_cast<int>(c % (k / 8)) * 8;
    const float scale = __bfloat162float(scales[row * groups + k0 / kGroup]);
    float v[8];
    if constexpr (kBits == 4) {
      const std::uint32_t word = __ldg(reinterpret_cast<const std::uint32_t*>(
          w + row * common::weight_only_row_bytes(4, k) + k0 / 2));
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        v[2 * p] = static_cast<float>(static_cast<int>((word >> (4 * p)) & 0xF) - 8);
        v[2 * p + 1] = static_cast<float>(static_cast<int>((word >> (4 * p + 16)) & 0xF) - 8);
      }
    } else {
      const uint2 bytes = __ldg(reinterpret_cast<const uint2*>(w + row * k + k0));
      const std::uint32_t words[2] = {bytes.x, bytes.y};
#pragma unroll
      for (int i = 0; i < 8; ++i)
        v[i] = static_cast<float>(static_cast<std::int8_t>((words[i / 4] >> (8 * (i % 4))) & 0xFF));
    }
    __nv_bfloat162 pairs[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      pairs[i] = __floats2bfloat162_rn(v[2 * i] * scale, v[2 * i + 1] * scale);
    uint4 packed;
    std::memcpy(&packed, pairs, sizeof(packed));
    *reinterpret_cast<uint4*>(out + row * k + k0) = packed;
  }
}

template <int kBits, int kTiles, int kRowTiles, int kSplit, int kStages, int kMinBlocks>
cudaError_t launch_config(const std::uint8_t* w_packed, const __nv_bfloat16* scales,
                          const __nv_bfloat16* x, __nv_bfloat16* y, int n, int k, int batch,
                          cudaStream_t stream) {
  if (n % (kTileRows * kRowTiles) != 0 || (k / kGroup) % kSplit != 0 ||
      (kBits == 4 && kTiles == 1 && k / kGroup > kFoldMaxGroups))
    return cudaErrorInvalidValue;
  const auto kernel = weight_only_gemv<kBits, kTiles, kRowTiles, kSplit, kStages, kMinBlocks>;
  constexpr int kWarps = kWarpsPerBlock<kSplit>;
  // Ask for the shared-memory carveout that kMinBlocks blocks need (their rings plus the 1 KiB
  // the system reserves per block, against 228 KiB), no more: the rest stays L1 for x. Set once
  // (the first call is a warm-up), so the timed calls pay no host work for it.
  static const cudaError_t carveout = [&] {
    constexpr int kRingBytes = kWarps * kStages * kRowTiles * kChunkBytes<kBits> +
                               (kBits == 4 && kTiles == 1 ? kFoldMaxGroups * 8 * 4 : 32);
    constexpr int kPercent =
        (100 * kMinBlocks * (kRingBytes + 1024) + 228 * 1024 - 1) / (228 * 1024);
    static_assert(kPercent <= 100, "the rings of kMinBlocks blocks must fit in shared memory");
    return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, kPercent);
  }();
  if (carveout != cudaSuccess)
    return carveout;
  const int sets = n / (kTileRows * kRowTiles);
  constexpr int kSetsPerBlock = kWarps / kSplit;
  const dim3 grid(static_cast<unsigned>((sets + kSetsPerBlock - 1) / kSetsPerBlock));
  kernel<<<grid, 32 * kWarps, 0, stream>>>(w_packed, scales, x, y, n, k, batch,
                                           NibbleMagic{0x000F000Fu, 0x43004300u});
  return cudaGetLastError();
}

template <int kBits, int kTiles, int kRowTiles, int kSplit, int kChunkGroups, int kMinBlocks,
          bool kInt8Nibbles = false>
cudaError_t launch_direct_config(const std::uint8_t* w_packed, const __nv_bfloat16* scales,
                                 const __nv_bfloat16* x, __nv_bfloat16* y, int n, int k, int batch,
                                 cudaStream_t stream) {
  if (n % (kTileRows * kRowTiles) != 0 || (k / kGroup) % kChunkGroups != 0)
    return cudaErrorInvalidValue;
  const auto kernel = weight_only_gemv_direct<kBits, kTiles, kRowTiles, kSplit, kChunkGroups,
                                              kMinBlocks, kInt8Nibbles>;
  // Shared memory holds only the partial sums (<= 14 KiB per block): ask for room for twice the
  // kMinBlocks blocks (the carveout may otherwise cap the blocks per SM), the rest stays L1,
  // where every warp finds x. Set once (the first call is a warm-up).
  static const cudaError_t carveout = [&] {
    constexpr int kPartialBytes = (kSplit > 1 ? kSplit - 1 : 1) * kRowTiles * kTiles * 4 * 32 *
                                  static_cast<int>(sizeof(float));
    constexpr int kPercent =
        (100 * 2 * kMinBlocks * (kPartialBytes + 1024) + 228 * 1024 - 1) / (228 * 1024);
    static_assert(kPercent <= 100, "the partial sums of 2 x kMinBlocks blocks must fit");
    return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, kPercent);
  }();
  if (carveout != cudaSuccess)
    return carveout;
  const dim3 grid(static_cast<unsigned>(n / (kTileRows * kRowTiles)));
  kernel<<<grid, 32 * kSplit, 0, stream>>>(w_packed, scales, x, y, n, k, batch,
                                           NibbleMagic{0x000F000Fu, 0x43004300u});
  return cudaGetLastError();
}

// kBlocksPerSm: the blocks one SM must have room for (registers, shared memory), and the blocks
// per SM launched.
template <int kWarps, int kChunksPerWarp, int kStages, int kBlocksPerSm, int kBatch>
cudaError_t launch_bulk_config(const std::uint8_t* w_packed, const __nv_bfloat16* scales,
                               const __nv_bfloat16* x, __nv_bfloat16* y, int n, int k,
                               bool programmatic_launch, cudaStream_t stream) {
  constexpr int kStageChunks = kWarps * kChunksPerWarp;
  if (n % kTileRows != 0 || (k / kGroup) % kStageChunks != 0)
    return cudaErrorInvalidValue;
  int device = 0, sms = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
    return e;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      e != cudaSuccess)
    return e;
  const int tiles = n / kTileRows;
  const int blocks = std::min(tiles, sms * kBlocksPerSm);
  const int max_tiles = (tiles + blocks - 1) / blocks;
  const BulkLayout layout(kStageChunks * kChunkBytes<4>, kStages, max_tiles, k / kGroup, kBatch,
                          kWarps);
  // kBlocksPerSm blocks (plus the 1 KiB the system reserves per block) must fit in the SM's
  // 228 KiB; a shape that needs more (a long K, few SMs for a wide N) is refused, not run with
  // fewer blocks per SM.
  if (kBlocksPerSm * (layout.bytes + 1024) > 228 * 1024)
    return cudaErrorInvalidValue;
  const auto kernel = weight_only_gemv_bulk<kWarps, kChunksPerWarp, kStages, kBlocksPerSm, kBatch>;
  // Raised when a shape needs more than before (the first call is a warm-up, outside capture);
  // the carveout leaves room for kBlocksPerSm blocks, the rest stays L1.
  static int allowed_bytes = 0;
  if (layout.bytes > allowed_bytes) {
    if (const cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, layout.bytes);
        e != cudaSuccess)
      return e;
    const int percent =
        std::min(100, (100 * kBlocksPerSm * (layout.bytes + 1024) + 228 * 1024 - 1) / (228 * 1024));
    if (const cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent);
        e != cudaSuccess)
      return e;
    allowed_bytes = layout.bytes;
  }
  cudaLaunchAttribute programmatic{};
  programmatic.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(32 * (kWarps + 1));
  config.dynamicSmemBytes = static_cast<std::size_t>(layout.bytes);
  config.stream = stream;
  config.attrs = programmatic_launch ? &programmatic : nullptr;
  config.numAttrs = programmatic_launch ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, w_packed, scales, x, y, n, k, max_tiles, 0x64006400u);
}

}  // namespace

cudaError_t launch_weight_only_pack_int8_nibbles(const std::uint8_t* w, int n, int k,
                                                 std::uint8_t* w_packed, cudaStream_t stream) {
  if (n <= 0 || n % kTileRows != 0 || k <= 0 || k % kGroup != 0)
    return cudaErrorInvalidValue;
  const std::size_t pieces = common::weight_only_row_bytes(8, k) * n / kPieceBytes;
  const unsigned grid = static_cast<unsigned>(pieces / 256 + 1 > 65536 ? 65536 : pieces / 256 + 1);
  weight_only_pack<8, true><<<grid, 256, 0, stream>>>(w, n, k, w_packed);
  return cudaGetLastError();
}

cudaError_t launch_weight_only_pack(int bits, const std::uint8_t* w, int n, int k,
                                    std::uint8_t* w_packed, cudaStream_t stream) {
  if ((bits != 4 && bits != 8) || n <= 0 || n % kTileRows != 0 || k <= 0 || k % kGroup != 0)
    return cudaErrorInvalidValue;
  const std::size_t pieces = common::weight_only_row_bytes(bits, k) * n / kPieceBytes;
  const unsigned grid = static_cast<unsigned>(pieces / 256 + 1 > 65536 ? 65536 : pieces / 256 + 1);
  if (bits == 4)
    weight_only_pack<4><<<grid, 256, 0, stream>>>(w, n, k, w_packed);
  else
    weight_only_pack<8><<<grid, 256, 0, stream>>>(w, n, k, w_packed);
  return cudaGetLastError();
}

// The four configurations <bits, n8 tiles, row tiles per warp, warps per row set, stages, blocks
// per SM>, the fastest of a sweep on the H200 (header comment). A warning from that sweep: with
// nvcc 13.0, <4|8, *, 2, 1, *, 4> (two tiles, one warp over all of K) compiled its cp.async
// L2::cache_hint copies with the policy in an odd uniform register (desc[UR1], seen in
// cuobjdump -sass) and died with "illegal instruction" on the GPU; the instantiations below were
// checked to use even ones (desc[UR4]/[UR6]...). After a change here, check again:
//   cuobjdump -sass <weight_only_gemv_kernel.cu.o> | grep -E 'desc\[UR[0-9]*[13579]\]'
// must print nothing.
cudaError_t launch_weight_only_gemv_fused(int bits, const std::uint8_t* w_packed,
                                          const __nv_bfloat16* scales, const __nv_bfloat16* x,
                                          __nv_bfloat16* y, int n, int k, int batch,
                                          cudaStream_t stream) {
  if ((bits != 4 && bits != 8) || n <= 0 || k <= 0 || k % kGroup != 0 || batch < 1 ||
      batch > kWeightOnlyMaxBatch)
    return cudaErrorInvalidValue;
  if (bits == 4)
    return batch <= 8
               ? launch_config<4, 1, 2, 2, 5, 4>(w_packed, scales, x, y, n, k, batch, stream)
               : launch_config<4, 2, 2, 2, 5, 4>(w_packed, scales, x, y, n, k, batch, stream);
  return batch <= 8 ? launch_config<8, 1, 1, 1, 3, 7>(w_packed, scales, x, y, n, k, batch, stream)
                    : launch_config<8, 2, 2, 2, 3, 4>(w_packed, scales, x, y, n, k, batch, stream);
}

// <bits, n8 tiles, row tiles per block, warps per block, groups per warp chunk, blocks per SM>,
// batch <= 8 only. Registers from ptxas -v for sm_90a (nvcc 13.0), no spills:
//   two_tiles     INT4: two 16-row tiles per warp sharing x and the bias MMAs, chunks of 4
//                 groups (8 KiB per warp in flight at once), 4 warps per block, 3 blocks (12 warps)
//                 per SM, 896 blocks; 168 registers;
//   int8_nibbles  INT8: one tile per warp, chunks of 4 groups (8 KiB), 8 warps per tile, 2 blocks
//                 (16 warps) per SM; 128 registers.
// Measured and dropped (NVIDIA H200, graph replay, run 20261124-064730-2774 unless noted): one
// tile per warp, INT4 chunks of 8 groups (16 warps per SM): 22.1 us at batch 1, 23.7 at batch 4,
// against 21.9 / 23.2 with two tiles; INT8 with the fp32 conversion: 37.0 us against 34.5 as
// nibbles; chunks of 4 groups and 8 warps per tile (run 20261124-061613-3c2f, 12 warps per SM
// then): 38.3 us at INT4 batch 1; batch 16 (same run): INT4 49.4 and INT8 60.2 us against the ring
// kernel's 33.2 and 41.2 (x fragments and MMAs doubled per weight).
cudaError_t launch_weight_only_gemv_direct(int bits, const std::uint8_t* w_packed,
                                           const __nv_bfloat16* scales, const __nv_bfloat16* x,
                                           __nv_bfloat16* y, int n, int k, int batch,
                                           WeightOnlyDirectShape shape, cudaStream_t stream) {
  if ((bits != 4 && bits != 8) || n <= 0 || k <= 0 || k % kGroup != 0 || batch < 1 || batch > 8)
    return cudaErrorInvalidValue;
  switch (shape) {
  case WeightOnlyDirectShape::two_tiles:
    return bits == 4
               ? launch_direct_config<4, 1, 2, 4, 4, 3>(w_packed, scales, x, y, n, k, batch, stream)
               : cudaErrorInvalidValue;
  case WeightOnlyDirectShape::int8_nibbles:
    return bits == 8 ? launch_direct_config<8, 1, 1, 8, 4, 2, true>(w_packed, scales, x, y, n, k,
                                                                    batch, stream)
                     : cudaErrorInvalidValue;
  }
  return cudaErrorInvalidValue;
}

// <consumer warps, chunks per warp, stages, blocks per SM, batch>, INT4, batch 1..2: 2 blocks per
// SM of 8 consumer warps, 4 stages of 16 KiB (16 groups of a tile; K a multiple of 2048): 128 KiB
// per SM in the ring. ptxas -v (nvcc 13.0): 86 / 87 registers at batch 1 / 2 on sm_90a, 87 / 86
// on sm_100a, no spills. Measured and dropped (NVIDIA H200, graph replay), all with the earlier
// bf16 consumer: 6 stages (192 KiB per SM) 22.8 us at int4_b1 against 22.2 with 4, no L2 hint 22.1,
// batch 4 30.3 against the direct kernel's 23.3 (run 20261124-091514-6b9d); whole-tile stages (1
// block of 16 consumer warps per SM, each warp's x and bias in registers for the call; run
// 20261124-092812-17c7): 21.9 us at int4_b1 against 22.6 for these stages in the same run, but 21.4
// against 20.1 with PDL (one block per SM: the next call's block starts only when the SM's one
// block has exited), 28.3 / 25.8 us at batch 4; one block per SM of these stages, leaving room for
// the next call's block under PDL (run 20261124-123622-4b93): speedup 6.60x against 7.53x for two
// blocks (int4_b1), 6.69x against 7.81x on the wide layer: half the consumer warps cost more than
// the overlap gained. With the fp16 consumer (run 20261124-131412-6042): 2 blocks per SM sized so
// that a third fits (3 stages, launch bounds for 3 blocks: 72 registers, 68 KiB), under PDL: 19.42
// us at int4_b1 against 16.90 for these 4-stage blocks.
cudaError_t launch_weight_only_gemv_bulk(const std::uint8_t* w_packed, const __nv_bfloat16* scales,
                                         const __nv_bfloat16* x, __nv_bfloat16* y, int n, int k,
                                         int batch, bool programmatic_launch, cudaStream_t stream) {
  if (n <= 0 || k <= 0 || k % kGroup != 0 || batch < 1 || batch > kBulkMaxBatch)
    return cudaErrorInvalidValue;
  return batch == 1 ? launch_bulk_config<8, 2, 4, 2, 1>(w_packed, scales, x, y, n, k,
                                                        programmatic_launch, stream)
                    : launch_bulk_config<8, 2, 4, 2, 2>(w_packed, scales, x, y, n, k,
                                                        programmatic_launch, stream);
}

cudaError_t launch_weight_only_dequantize(int bits, const std::uint8_t* w,
                                          const __nv_bfloat16* scales, int n, int k,
                                          __nv_bfloat16* w_bf16, cudaStream_t stream) {
  if ((bits != 4 && bits != 8) || n <= 0 || k <= 0 || k % kGroup != 0)
    return cudaErrorInvalidValue;
  const std::size_t chunks = static_cast<std::size_t>(n) * (k / 8);
  const unsigned grid = static_cast<unsigned>(chunks / 256 + 1 > 65536 ? 65536 : chunks / 256 + 1);
  if (bits == 4)
    weight_only_dequantize<4><<<grid, 256, 0, stream>>>(w, scales, n, k, w_bf16);
  else
    weight_only_dequantize<8><<<grid, 256, 0, stream>>>(w, scales, n, k, w_bf16);
  return cudaGetLastError();
}

}  // namespace aisp::ch19
