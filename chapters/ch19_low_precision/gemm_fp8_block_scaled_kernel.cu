// A block-scaled FP8 GEMM with FP32 promotion (DeepGEMM-style), on Hopper's wgmma.
//
// The problem (gemm_fp8_block_scaled_kernel.cuh): C = (A_q ∘ d_A)(B_q ∘ d_B)ᵀ with e4m3 operands,
// A scaled per row per 128 k, B per 128×128 block. Inside one 128-wide k block every product
// shares the same two factors, so the block's partial sum can be computed on the tensor cores in
// raw e4m3 and scaled afterwards:
//   for each k block kb:  T = A_q[:, kb] · B_q[:, kb]ᵀ           (4 wgmma m64nNk32, fresh T)
//                         acc += T · d_A[row, kb] · d_B[n-block, kb]   (N/2 FFMA per thread)
// The FFMA step is also the "promotion" DeepSeek-V3 describes: the tensor cores accumulate FP8
// products in a reduced-precision accumulator, so summing 8192 k there would lose bits; here no
// partial sum on the tensor cores spans more than 128 k, and all further summation is FP32.
//
// What every rung shares (one kernel template, Rung below says what differs):
//   - persistent, one block per SM, warp-specialized (as chapter 10's persistent rung): warpgroup 0
//     produces (one thread: wait empty[s], arm full[s], TMA copies of the A tile, the B tile and
//     the tile's A factors of one k block into ring slot s), its registers given back
//     (setmaxnreg 40); warpgroups 1 and 2 consume (setmaxnreg 232), each its half of the tile's
//     rows; a slot is released (empty[s], one arrival per consumer warp and block of the cluster)
//     once its wgmma finished and its factors were read;
//   - tiles in a grouped order (1024 rows of A at a time) so the tiles in flight share A rows and
//     B columns in L2;
//   - clusters of 2 (optional): two blocks on neighbouring SMs compute adjacent tiles that share
//     one operand tile; each loads half of it and multicasts it to both (TMA multicast), and a
//     slot is free when both blocks' consumers released it (on the peer's barrier through mapa).
//     128-row tiles pair vertically and share B, 256-row tiles horizontally and share A;
//   - the epilogue: fp32 accumulators -> bf16, stored from registers, or (kTmaStore) staged in
//     shared memory and written by TMA stores that run while the next tile's main loop does.
// What differs is the consumer's schedule (one idea per rung, each described at its main loop):
// two temporaries in flight (128×128), two fragments through one temporary (256×128), the wider
// instruction m64n192k32 (128×192), and that loop with its per-k-block overhead cut (lean).
//
// Bytes: M·K + N·K (e4m3) + scales + 2·M·N (bf16 C); FLOPs 2·M·N·K. Ceiling: FP8 tensor cores
// (1438 TFLOP/s for cuBLASLt on the H200, ANCHORS.md). sm_90a only (wgmma, setmaxnreg): elsewhere
// the body is a trap and the variants declare Feature::wgmma.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "../common/cluster.cuh"
#include "../common/fp8_scale_layouts.cuh"
#include "../common/fp8_wgmma.cuh"
#include "../common/mbarrier.cuh"
#include "../common/setmaxnreg.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "../common/wgmma.cuh"
#include "gemm_fp8_block_scaled_kernel.cuh"

namespace aisp::ch19 {
namespace {

constexpr int kBlockK = 128;   // = the scale block: one promotion per k block
constexpr int kConsumers = 2;  // consumer warpgroups
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupRowsOfA = 1024;  // tile order: this many rows of A at a time
constexpr int kStoreBoxCols = 64;    // TMA-store epilogue: boxes of 64 rows × 64 bf16 (128 B)

// How a consumer warpgroup turns ring slots into accumulators (see each main loop below).
enum class Schedule {
  paired_temporaries,  // 128×128: two k blocks in flight into two temporaries
  fragments,           // 256×128: two 64-row fragments per consumer through one temporary
  single_temporary,    // 128×192: one wide temporary per k block
};

// Hopper's opt-in shared memory per block (227 KiB; prepare checks the device's own figure).
constexpr unsigned kMaxSharedPerBlock = 227 * 1024;
constexpr int kMaxStages = 6;

// One rung (Fp8WgmmaRung: tile, cluster, epilogue) and everything the kernel
// derives from it, once: the schedule, the byte counts, the ring depth.
template <Fp8WgmmaRung kRung>
struct Rung {
  static constexpr int kTileM = kRung.tile_rows, kTileN = kRung.tile_cols;
  static constexpr int kCluster = kRung.cluster;
  static constexpr bool kTmaStore = kRung.tma_store;
  static constexpr bool kLean = kRung.lean;
  static constexpr Schedule kSchedule = kTileM == 256   ? Schedule::fragments
                                        : kTileN == 192 ? Schedule::single_temporary
                                                        : Schedule::paired_temporaries;
  // 256-row tiles pair horizontally in a cluster and share A; the others vertically, sharing B.
  static constexpr bool kShareA = kTileM == 256;
  static constexpr int kFragments = kTileM / 128;   // 64-row fragments per consumer warpgroup
  static constexpr int kAccumulators = kTileN / 2;  // fp32 registers per thread per fragment
  static constexpr unsigned kATileBytes = kTileM * kBlockK;
  static constexpr unsigned kBTileBytes = kTileN * kBlockK;
  static constexpr unsigned kAScaleBytes = kTileM * 4;
  static constexpr unsigned kStageBytes = kATileBytes + kBTileBytes + kAScaleBytes;
  // Shared memory: [C staging (kTmaStore)] then the ring: the A and B tiles of every slot
  // (1024-byte aligned for the swizzle), the A factors of every slot, full[] and empty[]. The
  // ring takes as many slots as fit beside the staging buffers, at most 6: 6 for 128×128 tiles,
  // 4 for 256×128, 5 for 128×192 (4 with the staging buffers).
  static constexpr unsigned kStagingFragmentBytes = 64 * kTileN * 2;  // 64 rows of bf16
  static constexpr unsigned kStagingBytes =
      kTmaStore ? kConsumers * kFragments * kStagingFragmentBytes : 0;
  static constexpr int kStages = std::min<int>(
      kMaxStages,
      (kMaxSharedPerBlock - common::kSharedAlignmentSlack - kStagingBytes) / (kStageBytes + 2 * 8));
  static constexpr unsigned kRingBytes = kStages * kStageBytes + 2 * kStages * 8;
  static constexpr unsigned kSharedBytes =
      kStagingBytes + kRingBytes + common::kSharedAlignmentSlack;
  static constexpr int kGroupRows = kGroupRowsOfA / (kTileM * (kShareA ? 1 : kCluster));
  static_assert(kTileN % kStoreBoxCols == 0, "the TMA-store boxes must tile the tile's columns");
  static_assert(kStages >= 2 && kSharedBytes <= kMaxSharedPerBlock, "the ring does not fit");
  static_assert(!kLean || (kSchedule == Schedule::single_temporary && kCluster == 1 && kTmaStore),
                "the lean main loop is written for 128×192 tiles, no cluster, the TMA store");
};

template <class R>
struct Ring {
  std::uint8_t* window;  // 1024-byte aligned
  __device__ std::uint8_t* staging(int consumer) const {
    return window + consumer * R::kFragments * R::kStagingFragmentBytes;
  }
  __device__ std::uint8_t* a_tile(int s) const {
    return window + R::kStagingBytes + s * (R::kATileBytes + R::kBTileBytes);
  }
  __device__ std::uint8_t* b_tile(int s) const { return a_tile(s) + R::kATileBytes; }
  __device__ float* a_scales(int s) const {
    return reinterpret_cast<float*>(a_tile(R::kStages) + s * R::kAScaleBytes);
  }
  __device__ std::uint64_t* full(int s) const {
    return reinterpret_cast<std::uint64_t*>(a_scales(R::kStages)) + s;
  }
  __device__ std::uint64_t* empty(int s) const { return full(R::kStages) + s; }
};

struct Tile {
  int row = 0;  // block row (cluster row when clustered)
  int col = 0;  // block column
};

[[maybe_unused]] __device__ __forceinline__ Tile grouped_tile(int tile, int tiles_m, int tiles_n,
                                                              int group_rows) {
  const int per_group = group_rows * tiles_n;
  const int first_row = (tile / per_group) * group_rows;
  const int rows_here = min(group_rows, tiles_m - first_row);
  const int in_group = tile % per_group;
  return {first_row + in_group % rows_here, in_group / rows_here};
}

// Which tiles this block computes, and where each starts in C. Clustered, a tile index names the
// cluster's pair of adjacent tiles and `rank` picks this block's.
template <class R>
struct TileWalk {
  int rank = 0, first = 0, stride = 0, tiles_m = 0, tiles_n = 0, tiles = 0;

  __device__ TileWalk(int m, int n) {
    first = static_cast<int>(blockIdx.x);
    stride = static_cast<int>(gridDim.x);
    if constexpr (R::kCluster > 1) {
      rank = static_cast<int>(common::cluster_cta_rank());
      first = static_cast<int>(common::cluster_index_x());
      stride = static_cast<int>(common::cluster_count_x());
    }
    const int rows = R::kTileM * (R::kShareA ? 1 : R::kCluster);
    const int cols = R::kTileN * (R::kShareA ? R::kCluster : 1);
    tiles_m = m / rows;
    tiles_n = (n + cols - 1) / cols;
    tiles = tiles_m * tiles_n;
  }

  struct Origin {
    int row0 = 0;  // first row of this block's tile in C
    int col0 = 0;  // first column
  };
  __device__ Origin origin(int tile) const {
    const Tile t = grouped_tile(tile, tiles_m, tiles_n, R::kGroupRows);
    if constexpr (R::kShareA)
      return {t.row * R::kTileM, (t.col * R::kCluster + rank) * R::kTileN};
    else
      return {(t.row * R::kCluster + rank) * R::kTileM, t.col * R::kTileN};
  }
};

// One operand's tile of one k block (kRows rows from row0) into dst: whole, or, when the cluster
// shares it, this block's 1/kCluster of its rows, multicast to every block of the cluster.
template <int kCluster, bool kSharedOperand, int kRows>
__device__ __forceinline__ void load_operand_tile(std::uint8_t* dst, const CUtensorMap& map,
                                                  std::uint64_t* full, int k0, int row0, int rank) {
  if constexpr (kCluster > 1 && kSharedOperand) {
    constexpr int kPartRows = kRows / kCluster;
    constexpr auto kClusterMask = static_cast<std::uint16_t>((1u << kCluster) - 1);
    common::tma_load_2d_multicast(dst + rank * kPartRows * kBlockK, map, full, k0,
                                  row0 + rank * kPartRows, kClusterMask);
  } else {
    (void)rank;
    common::tma_load_2d(dst, map, full, k0, row0);
  }
}

// The producer thread: every k block of every tile into the ring, in order.
template <class R>
__device__ __forceinline__ void produce(const Ring<R>& ring, const TileWalk<R>& walk,
                                        const CUtensorMap& a_map, const CUtensorMap& b_map,
                                        const CUtensorMap& a_scale_map, int k_blocks) {
  int step = 0;
  for (int tile = walk.first; tile < walk.tiles; tile += walk.stride) {
    const auto o = walk.origin(tile);
    for (int kb = 0; kb < k_blocks; ++kb, ++step) {
      const int s = step % R::kStages;
      const int k0 = kb * kBlockK;
      common::mbarrier_wait_parity(ring.empty(s), ((step / R::kStages) & 1) ^ 1);
      // The full boxes count even where they run past N (those rows arrive as zeros), and a
      // multicast tile counts whole in each block of the cluster.
      common::mbarrier_arrive_expect_tx(ring.full(s), R::kStageBytes);
      load_operand_tile<R::kCluster, R::kShareA, R::kTileM>(ring.a_tile(s), a_map, ring.full(s), k0,
                                                            o.row0, walk.rank);
      load_operand_tile<R::kCluster, !R::kShareA, R::kTileN>(ring.b_tile(s), b_map, ring.full(s),
                                                             k0, o.col0, walk.rank);
      common::tma_load_2d(ring.a_scales(s), a_scale_map, ring.full(s), o.row0, kb);
    }
  }
}

// Hands slot s back to the producer(s): one arrival per warp, on every block of the cluster.
template <class R>
__device__ __forceinline__ void release_slot(const Ring<R>& ring, int s) {
  __syncwarp();  // every lane's reads of the slot (its factors) happen before the release
  if (threadIdx.x % 32 == 0) {
    if constexpr (R::kCluster == 1) {
      common::mbarrier_arrive(ring.empty(s));
    } else {
      for (int peer = 0; peer < R::kCluster; ++peer)
        common::mbarrier_arrive_cluster(ring.empty(s), static_cast<std::uint32_t>(peer));
    }
  }
}

// t = one 64-row fragment of A × the B tile over one k block: four wgmma m64nNk32, one group.
template <int kN>
__device__ __forceinline__ void multiply_block(float (&t)[kN / 2], std::uint64_t desc_a,
                                               std::uint64_t desc_b) {
  common::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kBlockK / 32; ++kk)
    common::wgmma_m64nNk32_e4m3<kN>(t, desc_a + 2 * kk, desc_b + 2 * kk, kk > 0);
  common::wgmma_commit_group();
}

// acc += t · factors, t covering the accumulator's column groups from kFirstColumnGroup on (8
// columns each: registers 4j..4j+3). Column group j of the tile takes the first B scale block's
// factors for j < kFirstGroups and the second's after; top rows (4j, 4j+1) and bottom rows
// (4j+2, 4j+3) have their own A factors.
template <int kFirstGroups, int kFirstColumnGroup = 0, int kAcc, int kTemp>
__device__ __forceinline__ void promote(float (&acc)[kAcc], const float (&t)[kTemp],
                                        float top_first, float bottom_first, float top_second,
                                        float bottom_second) {
  static_assert(4 * kFirstColumnGroup + kTemp <= kAcc, "the temporary must lie inside acc");
#pragma unroll
  for (int i = 0; i < kTemp / 4; ++i) {
    const int j = kFirstColumnGroup + i;
    const float top = j < kFirstGroups ? top_first : top_second;
    const float bottom = j < kFirstGroups ? bottom_first : bottom_second;
    acc[4 * j] = fmaf(t[4 * i], top, acc[4 * j]);
    acc[4 * j + 1] = fmaf(t[4 * i + 1], top, acc[4 * j + 1]);
    acc[4 * j + 2] = fmaf(t[4 * i + 2], bottom, acc[4 * j + 2]);
    acc[4 * j + 3] = fmaf(t[4 * i + 3], bottom, acc[4 * j + 3]);
  }
}

// Where this thread's rows are in a consumer's share of the tile.
struct ConsumerThread {
  int consumer = 0;  // 0 or 1
  int warp = 0;      // in the warpgroup
  int lane = 0;
  __device__ ConsumerThread(int warpgroup)
      : consumer(warpgroup - 1), warp(static_cast<int>(threadIdx.x / 32) % 4),
        lane(static_cast<int>(threadIdx.x % 32)) {}
  // This thread's top row (bottom = +8) within fragment f of its consumer, relative to the tile.
  template <class R>
  __device__ int row(int f) const {
    return 64 * (R::kFragments * consumer + f) + 16 * warp + lane / 4;
  }
  // The wgmma descriptor offset of fragment f in the A tile (64 rows of 128 bytes = 512 units).
  template <class R>
  __device__ std::uint64_t a_offset(int f) const {
    return 512u * static_cast<unsigned>(R::kFragments * consumer + f);
  }
};

// ---------------------------------------------------------------------------------------------
// 128×128 (Schedule::paired_temporaries): each consumer warpgroup owns 64 rows and takes two k
// blocks at a time into two temporaries T0/T1 (accumulator and temporaries: 3 × 64 fp32 registers
// per thread): issue both blocks' wgmma, wait for the first, promote it while the second still
// runs on the tensor cores, then wait for and promote the second (that one overlaps the other
// warpgroup's wgmma instead). Keeping no wgmma in flight across the loop's back edge is what lets
// ptxas overlap them at all: with a temporary in flight around the loop it serializes every
// wgmma (warning C7514); k_blocks is even (checked in prepare). The B factor of a k block is one
// float for the whole tile (128 columns = one block), read through L1 when its wgmma is issued.
struct BlockFactors {
  float top = 0.0f;  // this thread's rows g and g + 8 of its 16-row slab, times the B factor
  float bottom = 0.0f;
};

// Waits for block `step`'s slot, reads its factors and issues its four wgmma into t.
template <class R>
__device__ __forceinline__ BlockFactors issue_block(const Ring<R>& ring, const ConsumerThread& me,
                                                    float (&t)[R::kAccumulators], int step,
                                                    float b_factor) {
  const int s = step % R::kStages;
  common::mbarrier_wait_parity(ring.full(s), static_cast<std::uint32_t>((step / R::kStages) & 1));
  const float* a_factors = ring.a_scales(s) + me.row<R>(0);
  const BlockFactors factors{a_factors[0] * b_factor, a_factors[8] * b_factor};
  multiply_block<R::kTileN>(
      t, common::wgmma_descriptor_k_major_sw128(ring.a_tile(s)) + me.a_offset<R>(0),
      common::wgmma_descriptor_k_major_sw128(ring.b_tile(s)));
  return factors;
}

// acc += t · factors, then frees block `step`'s slot (its wgmma finished before this is called).
template <class R>
__device__ __forceinline__ void promote_block(const Ring<R>& ring, float (&acc)[R::kAccumulators],
                                              float (&t)[R::kAccumulators],
                                              const BlockFactors& factors, int step) {
  common::wgmma_fence_accumulators(t);
  promote<R::kAccumulators / 4>(acc, t, factors.top, factors.bottom, factors.top, factors.bottom);
  release_slot(ring, step % R::kStages);
}

template <class R>
__device__ __forceinline__ void mainloop_paired(const Ring<R>& ring, const ConsumerThread& me,
                                                float (&acc)[1][R::kAccumulators], int base,
                                                int k_blocks, const float* tile_b_scales) {
  float t0[R::kAccumulators], t1[R::kAccumulators];
  for (int kb = 0; kb < k_blocks; kb += 2) {
    const BlockFactors f0 = issue_block(ring, me, t0, base + kb, __ldg(tile_b_scales + kb));
    const BlockFactors f1 = issue_block(ring, me, t1, base + kb + 1, __ldg(tile_b_scales + kb + 1));
    common::wgmma_wait_group<1>();
    promote_block(ring, acc[0], t0, f0, base + kb);
    common::wgmma_wait_group<0>();
    promote_block(ring, acc[0], t1, f1, base + kb + 1);
  }
}

// ---------------------------------------------------------------------------------------------
// 256×128 (Schedule::fragments): the same recipe on tiles twice as tall. Why: per k block an SM
// then loads 48 KiB (A 32 + B 16) for 2·256·128·128 FLOPs instead of 32 KiB for half of them, so
// the TMA writes into shared memory and the L2 -> SM traffic per FLOP drop by a quarter. Each
// consumer warpgroup owns 128 rows as two 64-row fragments with 64 fp32 accumulators each (128
// registers) and one 64-register temporary: per k block and fragment it issues the four wgmma
// into the temporary, waits for them and promotes, then does the same for its second fragment. Its
// own tensor-core work pauses during each promotion; the other consumer's wgmma (queued on the
// same SM sub-partitions) fill that gap. 192 fp32 registers of accumulator and temporary fit under
// setmaxnreg 232 with room for addresses; two temporaries would not (256). The slot is released
// before the second fragment's promotion, so the producer's next copy into it overlaps it.
template <class R>
__device__ __forceinline__ void mainloop_fragments(const Ring<R>& ring, const ConsumerThread& me,
                                                   float (&acc)[2][R::kAccumulators], int base,
                                                   int k_blocks, const float* tile_b_scales) {
  float temp[R::kAccumulators];
  float b_factor = __ldg(tile_b_scales);
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int step = base + kb, s = step % R::kStages;
    // Next block's B factor now, so its global load is not waited for at the promotion.
    const float next_b_factor = __ldg(tile_b_scales + min(kb + 1, k_blocks - 1));
    common::mbarrier_wait_parity(ring.full(s), static_cast<std::uint32_t>((step / R::kStages) & 1));
    const float* a_factors = ring.a_scales(s) + me.row<R>(0);
    const float f0_top = a_factors[0] * b_factor, f0_bottom = a_factors[8] * b_factor;
    const float f1_top = a_factors[64] * b_factor, f1_bottom = a_factors[72] * b_factor;
    const std::uint64_t desc_a = common::wgmma_descriptor_k_major_sw128(ring.a_tile(s));
    const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(ring.b_tile(s));

    multiply_block<R::kTileN>(temp, desc_a + me.a_offset<R>(0), desc_b);
    common::wgmma_wait_group<0>();
    common::wgmma_fence_accumulators(temp);
    promote<R::kAccumulators / 4>(acc[0], temp, f0_top, f0_bottom, f0_top, f0_bottom);

    multiply_block<R::kTileN>(temp, desc_a + me.a_offset<R>(1), desc_b);
    common::wgmma_wait_group<0>();
    common::wgmma_fence_accumulators(temp);
    release_slot(ring, s);
    promote<R::kAccumulators / 4>(acc[1], temp, f1_top, f1_bottom, f1_top, f1_bottom);
    b_factor = next_b_factor;
  }
}

// ---------------------------------------------------------------------------------------------
// 128×192 (Schedule::single_temporary): the 128-wide rungs spend ~386 cycles per group of four
// wgmma m64n128k32 that take 256 tensor-core cycles, whatever the promotion's schedule (ncu on the
// H200: tensor pipe ~66% on 128×128 and 256×128 tiles alike; consumers forced to take turns were
// slower still, README), which points at the instruction's width: every wgmma reads its B rows
// from shared memory again, so shared-memory bytes per MAC are 1/64 + 1/N. Here each consumer
// warpgroup issues m64n192k32 (96 accumulator registers, 96 tensor-core cycles per instruction
// instead of 64) on its 64 rows: 96 accumulators + one 96-register temporary fit under setmaxnreg
// 232. Per k block and consumer: four wgmma into the temporary, wait, release the slot, 96 FFMA
// promotion (the other consumer's group runs meanwhile). A 192-column tile spans two 128-column B
// scale blocks, split at column 128 or 64 of the tile (tile start mod 128 is 0 or 64): the
// promotion takes the first or second block's factor per column group, chosen at compile time in
// two unrolled copies. N need not be a multiple of 192: the last column of tiles is partial (TMA
// fills the rows past N with zeros, the stores skip the columns past N).
template <class R>
__device__ __forceinline__ void
mainloop_single(const Ring<R>& ring, const ConsumerThread& me, float (&acc)[1][R::kAccumulators],
                int base, int k_blocks, const float* b_scales, int b_scale_ld, int col0, int n) {
  // The tile's two B scale blocks and the tile column where the second begins (128 or 64); past
  // N the second is clamped to the last block (its products are zeros, never stored).
  const int first_block = col0 / 128;
  const int second_block = min(first_block + 1, n / 128 - 1);
  const bool split_at_128 = col0 % 128 == 0;
  const float* first_scales = b_scales + static_cast<std::size_t>(first_block) * b_scale_ld;
  const float* second_scales = b_scales + static_cast<std::size_t>(second_block) * b_scale_ld;
  float temp[R::kAccumulators];
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int step = base + kb, s = step % R::kStages;
    const float b_first = __ldg(first_scales + kb), b_second = __ldg(second_scales + kb);
    common::mbarrier_wait_parity(ring.full(s), static_cast<std::uint32_t>((step / R::kStages) & 1));
    const float* a_factors = ring.a_scales(s) + me.row<R>(0);
    const float a_top = a_factors[0], a_bottom = a_factors[8];
    multiply_block<R::kTileN>(
        temp, common::wgmma_descriptor_k_major_sw128(ring.a_tile(s)) + me.a_offset<R>(0),
        common::wgmma_descriptor_k_major_sw128(ring.b_tile(s)));
    common::wgmma_wait_group<0>();
    common::wgmma_fence_accumulators(temp);
    // The slot's tiles and factors are no longer read: release it before promoting.
    release_slot(ring, s);
    const float top_first = a_top * b_first, bottom_first = a_bottom * b_first;
    const float top_second = a_top * b_second, bottom_second = a_bottom * b_second;
    if (split_at_128)
      promote<16>(acc[0], temp, top_first, bottom_first, top_second, bottom_second);
    else
      promote<8>(acc[0], temp, top_first, bottom_first, top_second, bottom_second);
  }
}

// ---------------------------------------------------------------------------------------------
// The lean main loop (Rung::kLean): mainloop_single's schedule with less work between one k
// block's promotion and the next block's first wgmma. A clock64 timeline of mainloop_single on
// the H200 (README: "Sixth session") showed the two consumers half a period apart and the
// producer thousands of cycles ahead, yet each consumer spent ~430 cycles per k block outside its
// wgmma and promotion: the slot's descriptors, barrier and factor addresses were rebuilt from
// generic pointers every k block (the shared window's base through S2UR SR_CgaCtaId, then a chain
// of uniform-datapath operations before the first wgmma could issue), and a second copy of the
// promotion sat behind a branch. One consumer's wgmma group (384 tensor-core cycles) hides the
// other's overhead and promotion only when those take less than that; they took ~740. Here slot
// 0's descriptors and shared addresses are computed once per kernel, the k loop is unrolled by
// the ring's depth so that every slot's are slot 0's plus immediates, and the promotion has no
// branch (promote_three_bands). A first version with the slot index as a run-time counter was
// slower than mainloop_single (ptxas rebuilt the addresses anyway and moved the B-factor loads
// between the wgmma): the unrolling is what removes the work.
struct LeanRing {
  std::uint64_t desc_a = 0;     // this consumer's A fragment in slot 0
  std::uint64_t desc_b = 0;     // the B tile in slot 0
  std::uint32_t full = 0;       // shared address of full[0]; full[s] is 8·s further
  std::uint32_t empty = 0;      // empty[0]
  std::uint32_t a_factors = 0;  // this thread's top-row A factor in slot 0
};

template <class R>
__device__ __forceinline__ LeanRing lean_ring(const Ring<R>& ring, const ConsumerThread& me) {
  return {common::wgmma_descriptor_k_major_sw128(ring.a_tile(0)) + me.a_offset<R>(0),
          common::wgmma_descriptor_k_major_sw128(ring.b_tile(0)),
          common::shared_address(ring.full(0)), common::shared_address(ring.empty(0)),
          common::shared_address(ring.a_scales(0) + me.row<R>(0))};
}

[[maybe_unused]] __device__ __forceinline__ float load_shared_f32(std::uint32_t address) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(address) : "memory");
  return v;
}

// acc += t · factors for a 192-column tile without a branch on where its second B scale block
// begins: column groups 0–7 always take the first block's factors, 16–23 the second's, and 8–15
// whichever block columns 64–127 belong to (`middle`, chosen once per k block).
template <int kAcc>
__device__ __forceinline__ void
promote_three_bands(float (&acc)[kAcc], const float (&t)[kAcc], float top_first, float bottom_first,
                    float top_middle, float bottom_middle, float top_second, float bottom_second) {
  static_assert(kAcc == 96, "written for 192-column tiles (24 column groups of 8)");
#pragma unroll
  for (int j = 0; j < kAcc / 4; ++j) {
    const float top = j < 8 ? top_first : j < 16 ? top_middle : top_second;
    const float bottom = j < 8 ? bottom_first : j < 16 ? bottom_middle : bottom_second;
    acc[4 * j] = fmaf(t[4 * j], top, acc[4 * j]);
    acc[4 * j + 1] = fmaf(t[4 * j + 1], top, acc[4 * j + 1]);
    acc[4 * j + 2] = fmaf(t[4 * j + 2], bottom, acc[4 * j + 2]);
    acc[4 * j + 3] = fmaf(t[4 * j + 3], bottom, acc[4 * j + 3]);
  }
}

// The k loop unrolled by the ring's depth, so each slot's index is a compile-time constant: its
// barrier and factor addresses and its descriptors are slot 0's plus immediates. Needs every tile
// to start at slot 0 (k_blocks a multiple of kStages: prepare checks). `parity` is the ring's
// phase at the tile's start and runs on across tiles.
template <class R>
__device__ __forceinline__ void mainloop_lean(const LeanRing& lr, float (&acc)[1][R::kAccumulators],
                                              int k_blocks, const float* b_scales, int b_scale_ld,
                                              int col0, int n, std::uint32_t& parity) {
  static_assert(R::kTileN == 192, "written for 128×192 tiles (two B scale blocks per tile)");
  const int first_block = col0 / 128;
  const int second_block = min(first_block + 1, n / 128 - 1);
  const bool split_at_128 = col0 % 128 == 0;
  const float* first_scales = b_scales + static_cast<std::size_t>(first_block) * b_scale_ld;
  const float* second_scales = b_scales + static_cast<std::size_t>(second_block) * b_scale_ld;
  // Slot s's tiles lie s strides after slot 0's; a descriptor's address field counts 16 bytes.
  constexpr std::uint32_t kSlotDescriptorStride = (R::kATileBytes + R::kBTileBytes) >> 4;
  float temp[R::kAccumulators];
  for (int kb0 = 0; kb0 < k_blocks; kb0 += R::kStages) {
#pragma unroll
    for (int s = 0; s < R::kStages; ++s) {
      const int kb = kb0 + s;
      const float b_first = __ldg(first_scales + kb);
      const float b_second = __ldg(second_scales + kb);
      common::mbarrier_wait_parity(lr.full + 8 * s, parity);
      const std::uint32_t factors = lr.a_factors + s * R::kAScaleBytes;
      const float a_top = load_shared_f32(factors), a_bottom = load_shared_f32(factors + 8 * 4);
      multiply_block<R::kTileN>(temp, lr.desc_a + s * kSlotDescriptorStride,
                                lr.desc_b + s * kSlotDescriptorStride);
      common::wgmma_wait_group<0>();
      common::wgmma_fence_accumulators(temp);
      __syncwarp();  // every lane's reads of the slot happen before the release
      if (threadIdx.x % 32 == 0)
        common::mbarrier_arrive(lr.empty + 8 * s);
      const float top_first = a_top * b_first, bottom_first = a_bottom * b_first;
      const float top_second = a_top * b_second, bottom_second = a_bottom * b_second;
      promote_three_bands(acc[0], temp, top_first, bottom_first,
                          split_at_128 ? top_first : top_second,
                          split_at_128 ? bottom_first : bottom_second, top_second, bottom_second);
    }
    parity ^= 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Epilogues.

// One 64-row fragment (fp32, wgmma's layout) -> bf16 C straight from registers: the four lanes of
// a quad write 16 contiguous bytes of a row. With partial columns, pairs at or past n are skipped
// (n is even: a pair is all in or all out).
template <bool kPartialColumns, int kAcc>
__device__ __forceinline__ void store_fragment(const float (&acc)[kAcc], __nv_bfloat16* c,
                                               std::size_t ldc, std::size_t row0, int col0, int n) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  __nv_bfloat16* top = c + (row0 + 16 * warp + lane / 4) * ldc + col0 + 2 * (lane % 4);
  __nv_bfloat16* bottom = top + 8 * ldc;
#pragma unroll
  for (int j = 0; j < kAcc / 4; ++j) {
    if (!kPartialColumns || col0 + 8 * j + 2 * (lane % 4) < n) {
      *reinterpret_cast<__nv_bfloat162*>(top + 8 * j) =
          __floats2bfloat162_rn(acc[4 * j], acc[4 * j + 1]);
      *reinterpret_cast<__nv_bfloat162*>(bottom + 8 * j) =
          __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
    }
  }
}

// Blocks until the 128 threads of consumer warpgroup `consumer` arrive (named barrier 1 + consumer;
// 0 is __syncthreads'). The id in a register (ptxas then reserves all 16 barriers; harmless at one
// block per SM): the form measured at 0.828-0.854 of cuBLASLt (runs 20261124-085752-a5c7,
// -091545-065b, -094759-414d); a version with immediate ids behind a branch measured 0.766 in run
// 20261124-092910-b4b5, the only difference in the kernel's PTX (cause not established).
[[maybe_unused]] __device__ __forceinline__ void consumer_barrier(int consumer) {
  asm volatile("bar.sync %0, 128;" ::"r"(1 + consumer) : "memory");
}

// The TMA-store epilogue: the consumer writes its fragments as bf16 into its staging buffer in the
// layout of a 128B-swizzled TMA box of 64 rows × 64 columns (row r's 16-byte chunk c at c ^ (r%8):
// a warp's stores of 8 rows × 16 bytes hit 32 distinct banks), then one thread starts TMA stores
// of the boxes (columns past N are clipped by the map) and the warpgroup goes on to its next tile
// while the copy engine writes C. The buffer is reused only after that thread has seen the
// previous tile's stores finish reading it (bulk wait_group.read), before the warpgroup writes.
template <class R>
__device__ __forceinline__ void
store_tile_through_shared(const Ring<R>& ring, const ConsumerThread& me,
                          const float (&acc)[R::kFragments][R::kAccumulators],
                          const CUtensorMap& c_map, int row0, int col0, int n) {
  const bool issuer = threadIdx.x % 128 == 0;
  std::uint8_t* staging = ring.staging(me.consumer);
  if (issuer)
    common::bulk_wait_group_read<0>();
  consumer_barrier(me.consumer);
  const int r = 16 * me.warp + me.lane / 4;  // top row in the fragment; bottom r + 8, same r % 8
#pragma unroll
  for (int f = 0; f < R::kFragments; ++f) {
#pragma unroll
    for (int j = 0; j < R::kAccumulators / 4; ++j) {
      std::uint8_t* box = staging + f * R::kStagingFragmentBytes + (j / 8) * (64 * 128);
      const int chunk = (j % 8) ^ (r % 8);
      const __nv_bfloat162 top = __floats2bfloat162_rn(acc[f][4 * j], acc[f][4 * j + 1]);
      const __nv_bfloat162 bottom = __floats2bfloat162_rn(acc[f][4 * j + 2], acc[f][4 * j + 3]);
      *reinterpret_cast<__nv_bfloat162*>(box + r * 128 + chunk * 16 + 4 * (me.lane % 4)) = top;
      *reinterpret_cast<__nv_bfloat162*>(box + (r + 8) * 128 + chunk * 16 + 4 * (me.lane % 4)) =
          bottom;
    }
  }
  common::fence_proxy_async_shared();  // the copy engine reads what these stores wrote
  consumer_barrier(me.consumer);
  if (issuer) {
#pragma unroll
    for (int f = 0; f < R::kFragments; ++f) {
#pragma unroll
      for (int b = 0; b < R::kTileN / kStoreBoxCols; ++b) {
        const int col = col0 + b * kStoreBoxCols;
        if (col < n)
          common::tma_store_2d(c_map, staging + f * R::kStagingFragmentBytes + b * (64 * 128), col,
                               row0 + 64 * (R::kFragments * me.consumer + f));
      }
    }
    common::bulk_commit_group();
  }
}

// ---------------------------------------------------------------------------------------------
// The consumer warpgroup: per tile, zero the accumulators, run the rung's main loop, store.
template <class R>
__device__ __forceinline__ void consume(const Ring<R>& ring, const TileWalk<R>& walk, int warpgroup,
                                        const CUtensorMap& c_map, const float* b_scales,
                                        __nv_bfloat16* c, int n, int k) {
  const ConsumerThread me(warpgroup);
  const int k_blocks = k / kBlockK;
  const int b_scale_ld =
      common::Fp8ScaleLayout{common::Fp8ScaleGranularity::block_128x128, n, k}.block_ld();
  float acc[R::kFragments][R::kAccumulators];
  [[maybe_unused]] const LeanRing lean = lean_ring(ring, me);
  [[maybe_unused]] std::uint32_t lean_parity = 0;  // the lean loop's ring phase
  int base = 0;  // the ring step of this tile's first k block (runs on across tiles)
  for (int tile = walk.first; tile < walk.tiles; tile += walk.stride, base += k_blocks) {
    const auto o = walk.origin(tile);
#pragma unroll
    for (int f = 0; f < R::kFragments; ++f)
#pragma unroll
      for (int i = 0; i < R::kAccumulators; ++i)
        acc[f][i] = 0.0f;
    // The B factors of the tile's (first) 128-column block, one per k block.
    const float* tile_b_scales = b_scales + static_cast<std::size_t>(o.col0 / 128) * b_scale_ld;
    if constexpr (R::kSchedule == Schedule::paired_temporaries) {
      mainloop_paired(ring, me, acc, base, k_blocks, tile_b_scales);
    } else if constexpr (R::kSchedule == Schedule::fragments) {
      mainloop_fragments(ring, me, acc, base, k_blocks, tile_b_scales);
    } else if constexpr (R::kLean) {
      mainloop_lean<R>(lean, acc, k_blocks, b_scales, b_scale_ld, o.col0, n, lean_parity);
    } else {
      mainloop_single(ring, me, acc, base, k_blocks, b_scales, b_scale_ld, o.col0, n);
    }
    if constexpr (R::kTmaStore) {
      store_tile_through_shared(ring, me, acc, c_map, o.row0, o.col0, n);
    } else {
#pragma unroll
      for (int f = 0; f < R::kFragments; ++f)
        // 192-column tiles straddle N's end (8192 = 42·192 + 128): the last column is partial.
        store_fragment<R::kTileN % 128 != 0>(
            acc[f], c, static_cast<std::size_t>(n),
            static_cast<std::size_t>(o.row0 + 64 * (R::kFragments * me.consumer + f)), o.col0, n);
    }
  }
  if constexpr (R::kTmaStore) {
    if (threadIdx.x % 128 == 0)
      common::bulk_wait_group_read<0>();  // the staging buffer outlives the last store's reads
  }
}

template <class R>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_fp8_block_scaled(const __grid_constant__ CUtensorMap a_map,
                          const __grid_constant__ CUtensorMap b_map,
                          const __grid_constant__ CUtensorMap a_scale_map,
                          const __grid_constant__ CUtensorMap c_map,
                          const float* __restrict__ b_scales, __nv_bfloat16* __restrict__ c, int m,
                          int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  const Ring<R> ring{common::align_shared_1024(shared_window)};
  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  const TileWalk<R> walk(m, n);

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    common::tma_prefetch_tensor_map(a_scale_map);
    for (int s = 0; s < R::kStages; ++s) {
      common::mbarrier_init(ring.full(s), 1);
      common::mbarrier_init(ring.empty(s), 4 * kConsumers * R::kCluster);
    }
    common::mbarrier_init_fence();
  }
  if constexpr (R::kCluster > 1)
    common::cluster_sync();  // every block's barriers exist before anyone copies or arrives
  else
    __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0)
      produce(ring, walk, a_map, b_map, a_scale_map, k / kBlockK);
    __syncwarp();
  } else {
    common::setmaxnreg_increase<232>();
    consume(ring, walk, warpgroup, c_map, b_scales, c, n, k);
  }
  if constexpr (R::kCluster > 1)
    common::cluster_sync();  // no block exits while its peer may still signal or copy into it
#else
  (void)a_map, (void)b_map, (void)a_scale_map, (void)c_map, (void)b_scales, (void)c, (void)m,
      (void)n, (void)k;
  // The shape constants only the sm_90a body reads (unreferenced ones are errors under -Werror).
  static_assert(R::kCluster >= 1 && R::kShareA == (R::kTileM == 256) && R::kAccumulators > 0 &&
                R::kGroupRows >= 1 &&
                (R::kSchedule == Schedule::fragments) == (R::kFragments == 2));
  __trap();  // wgmma is sm_90a only: the variants declare Feature::wgmma and are skipped elsewhere
#endif
}

// The rungs built, each one kernel instantiation (the variant files name them).
constexpr Fp8WgmmaRung kBuiltRungs[] = {
    {},                                                   // 128×128
    {.cluster = 2},                                       // 128×128, B multicast
    {.tile_rows = 256},                                   // 256×128
    {.tile_rows = 256, .cluster = 2},                     // 256×128, A multicast
    {.tile_cols = 192},                                   // 128×192
    {.tile_cols = 192, .tma_store = true},                // 128×192, TMA-store epilogue
    {.tile_cols = 192, .tma_store = true, .lean = true},  // 128×192, lean main loop
};

using KernelFunction = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, const float*,
                                __nv_bfloat16*, int, int, int);

struct KernelChoice {
  KernelFunction kernel = nullptr;
  unsigned shared_bytes = 0;
  int stages = 0;  // ring slots
};

template <std::size_t... kIndex>
KernelChoice find_kernel(const Fp8WgmmaRung& rung, std::index_sequence<kIndex...>) {
  KernelChoice found;
  (void)((rung == kBuiltRungs[kIndex] ? (found = {gemm_fp8_block_scaled<Rung<kBuiltRungs[kIndex]>>,
                                                  Rung<kBuiltRungs[kIndex]>::kSharedBytes,
                                                  Rung<kBuiltRungs[kIndex]>::kStages},
                                         true)
                                      : false) ||
         ...);
  return found;
}

// The kernel for a rung, or {} where none is built.
KernelChoice kernel_for(const Fp8WgmmaRung& rung) {
  return find_kernel(rung, std::make_index_sequence<std::size(kBuiltRungs)>{});
}

// A launch configuration with the rung's cluster size; the attribute lives beside the config that
// points at it (hence no copies).
struct ClusterLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute cluster_dims{};

  ClusterLaunch(const Fp8BlockScaledGemmLaunch& launch, dim3 grid, cudaStream_t stream) {
    config.gridDim = grid;
    config.blockDim = launch.block;
    config.dynamicSmemBytes = launch.shared_bytes;
    config.stream = stream;
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = static_cast<unsigned>(launch.rung.cluster);
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// Opts the kernel into its shared memory and sizes the persistent grid: one block per SM, or
// as many clusters as can be resident at once (GPCs need not split evenly into pairs).
void size_persistent_grid(Fp8BlockScaledGemmLaunch& launch, const cudaDeviceProp& device,
                          int tiles) {
  const auto fail = [](const char* call, cudaError_t status) {
    throw std::runtime_error(std::string("gemm_fp8_block_scaled: ") + call + ": " +
                             cudaGetErrorString(status));
  };
  const KernelFunction kernel = kernel_for(launch.rung).kernel;
  cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(launch.shared_bytes));
  if (status != cudaSuccess)
    fail("cudaFuncSetAttribute", status);
  int blocks = std::min(tiles, device.multiProcessorCount);
  if (launch.rung.cluster > 1) {
    const ClusterLaunch cluster(launch, dim3(static_cast<unsigned>(device.multiProcessorCount)),
                                nullptr);
    int resident = 0;
    status = cudaOccupancyMaxActiveClusters(&resident, kernel, &cluster.config);
    if (status != cudaSuccess)
      fail("cudaOccupancyMaxActiveClusters", status);
    if (resident < 1)
      throw std::runtime_error("gemm_fp8_block_scaled: no 2-block cluster of this kernel fits on "
                               "the GPU (cudaOccupancyMaxActiveClusters returned 0)");
    blocks = launch.rung.cluster * std::min(tiles / launch.rung.cluster, resident);
  }
  launch.grid = dim3(static_cast<unsigned>(blocks));
}

std::string describe(const Fp8WgmmaRung& rung) {
  return std::to_string(rung.tile_rows) + "x" + std::to_string(rung.tile_cols) +
         " tiles, cluster " + std::to_string(rung.cluster) +
         (rung.tma_store ? ", TMA-store epilogue" : "") + (rung.lean ? ", lean main loop" : "");
}

std::string built_rungs() {
  std::string list;
  for (const Fp8WgmmaRung& rung : kBuiltRungs)
    list += (list.empty() ? "" : "; ") + describe(rung);
  return list;
}

}  // namespace

Fp8BlockScaledGemmLaunch prepare_gemm_fp8_block_scaled(const Fp8BlockScaledGemmArgs& args,
                                                       const cudaDeviceProp& device,
                                                       const Fp8WgmmaRung& rung) {
  if (rung.cluster != 1 && rung.cluster != 2)
    throw std::invalid_argument("gemm_fp8_block_scaled: cluster must be 1 or 2");
  const KernelChoice chosen = kernel_for(rung);
  if (!chosen.kernel)
    throw std::invalid_argument(
        "gemm_fp8_block_scaled: no kernel is built for " + describe(rung) + " (built: " +
        built_rungs() + "; add the rung to kBuiltRungs in gemm_fp8_block_scaled_kernel.cu)");
  if (!args.a || !args.b || !args.a_scales || !args.b_scales || !args.c)
    throw std::invalid_argument("gemm_fp8_block_scaled: null operand or scale pointer");
  // A cluster pairs tiles vertically (they share B) or, for 256-row tiles, horizontally (A).
  const bool share_a = rung.tile_rows == 256;
  const int m_multiple = share_a ? rung.tile_rows : rung.tile_rows * rung.cluster;
  const int n_multiple = share_a ? rung.tile_cols * rung.cluster : 128;
  if (args.m <= 0 || args.n <= 0 || args.k <= 0 || args.m % m_multiple != 0 ||
      args.n % n_multiple != 0 || args.k % (2 * kBlockK) != 0)
    throw std::invalid_argument(
        "gemm_fp8_block_scaled: M=" + std::to_string(args.m) + " N=" + std::to_string(args.n) +
        " K=" + std::to_string(args.k) + " must be multiples of " + std::to_string(m_multiple) +
        ", " + std::to_string(n_multiple) +
        " and 256 (whole tiles, whole scale blocks and an "
        "even number of k blocks; the kernel has no tail handling): pad the problem");
  if (rung.lean && (args.k / kBlockK) % chosen.stages != 0)
    throw std::invalid_argument("gemm_fp8_block_scaled: the lean main loop of " + describe(rung) +
                                " runs its " + std::to_string(chosen.stages) +
                                " ring slots unrolled and needs K/128 a multiple of " +
                                std::to_string(chosen.stages) + " (K=" + std::to_string(args.k) +
                                "): pad K or use the rung without `lean`");
  if (device.sharedMemPerBlockOptin < chosen.shared_bytes)
    throw std::invalid_argument("gemm_fp8_block_scaled: " + describe(rung) + " needs " +
                                std::to_string(chosen.shared_bytes) +
                                " bytes of shared memory per block; this GPU offers " +
                                std::to_string(device.sharedMemPerBlockOptin));
  Fp8BlockScaledGemmLaunch launch;
  launch.args = args;
  launch.rung = rung;
  launch.block = dim3(kThreads);
  launch.shared_bytes = chosen.shared_bytes;
  // The shared operand is loaded in parts, one per block of the cluster.
  const int a_box_rows = share_a ? rung.tile_rows / rung.cluster : rung.tile_rows;
  const int b_box_rows = share_a ? rung.tile_cols : rung.tile_cols / rung.cluster;
  // An e4m3 operand (rows × K, K-major) in boxes of box_rows rows × one k block.
  const auto operand_map = [&](const std::uint8_t* base, int rows, int box_rows) {
    return common::encode_tiled_matrix_2d({.base = base,
                                           .dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                           .element_bytes = 1,
                                           .rows = static_cast<std::uint64_t>(rows),
                                           .cols = static_cast<std::uint64_t>(args.k),
                                           .box_rows = static_cast<std::uint32_t>(box_rows),
                                           .box_cols = kBlockK});
  };
  launch.a_map = operand_map(args.a, args.m, a_box_rows);
  launch.b_map = operand_map(args.b, args.n, b_box_rows);
  launch.a_scale_map =
      common::encode_tiled_matrix_2d({.base = args.a_scales,
                                      .dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                      .element_bytes = 4,
                                      .rows = static_cast<std::uint64_t>(args.k / kBlockK),
                                      .cols = static_cast<std::uint64_t>(args.m),
                                      .box_rows = 1,
                                      .box_cols = static_cast<std::uint32_t>(rung.tile_rows),
                                      .swizzle = CU_TENSOR_MAP_SWIZZLE_NONE});
  if (rung.tma_store)
    launch.c_map = common::encode_tiled_matrix_2d({.base = args.c,
                                                   .dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                                                   .element_bytes = 2,
                                                   .rows = static_cast<std::uint64_t>(args.m),
                                                   .cols = static_cast<std::uint64_t>(args.n),
                                                   .box_rows = 64,
                                                   .box_cols = kStoreBoxCols});
  size_persistent_grid(
      launch, device, (args.m / rung.tile_rows) * ((args.n + rung.tile_cols - 1) / rung.tile_cols));
  return launch;
}

Fp8BlockScaledGemmLaunch prepare_gemm_fp8_block_scaled(const Fp8BlockScaledGemmArgs& args,
                                                       const cudaDeviceProp& device, int cluster,
                                                       int tile_rows, int tile_cols) {
  return prepare_gemm_fp8_block_scaled(
      args, device,
      Fp8WgmmaRung{.tile_rows = tile_rows, .tile_cols = tile_cols, .cluster = cluster});
}

cudaError_t launch_gemm_fp8_block_scaled(const Fp8BlockScaledGemmLaunch& launch,
                                         cudaStream_t stream) {
  const Fp8BlockScaledGemmArgs& a = launch.args;
  const KernelFunction kernel = kernel_for(launch.rung).kernel;
  if (!kernel)
    return cudaErrorInvalidValue;  // a launch not made by prepare_gemm_fp8_block_scaled
  if (launch.rung.cluster == 1) {
    kernel<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        launch.a_map, launch.b_map, launch.a_scale_map, launch.c_map, a.b_scales, a.c, a.m, a.n,
        a.k);
    return cudaGetLastError();
  }
  const ClusterLaunch cluster(launch, launch.grid, stream);
  return cudaLaunchKernelEx(&cluster.config, kernel, launch.a_map, launch.b_map, launch.a_scale_map,
                            launch.c_map, a.b_scales, a.c, a.m, a.n, a.k);
}

}  // namespace aisp::ch19
