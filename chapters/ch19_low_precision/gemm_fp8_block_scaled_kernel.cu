// A block-scaled FP8 GEMM with FP32 promotion (DeepGEMM-style), on Hopper's wgmma.
//
// The problem (gemm_fp8_block_scaled_kernel.cuh): C = (A_q ∘ d_A)(B_q ∘ d_B)ᵀ with e4m3 operands,
// A scaled per row per 128 k, B per 128×128 block. Inside one 128-wide k block every product
// shares the same two factors, so the block's partial sum can be computed on the tensor cores in
// raw e4m3 and scaled afterwards:
//   for each k block kb:  T = A_q[:, kb] · B_q[:, kb]ᵀ           (4 wgmma m64n128k32, fresh T)
//                         acc += T · d_A[row, kb] · d_B[n-block, kb]   (64 FFMA per thread)
// The FFMA step is also the "promotion" DeepSeek-V3 describes: the tensor cores accumulate FP8
// products in a reduced-precision accumulator, so summing 8192 k there would lose bits; here no
// partial sum on the tensor cores spans more than 128 k, and all further summation is FP32.
//
// Structure (one block per SM, persistent, warp-specialized, as chapter 10's persistent rung):
//   - tile 128×128 of C per block, k block 128: per k block a 16 KiB A tile, a 16 KiB B tile and
//     the 128 A factors (512 B) land in a ring of 6 slots through TMA, counted on full[s];
//   - warpgroup 0 produces (one thread: wait empty[s], arm full[s], three TMA copies), with its
//     registers given back (setmaxnreg 40);
//   - warpgroups 1 and 2 consume 64 rows each (setmaxnreg 232), two k blocks at a time into two
//     temporaries T0/T1 (accumulator and temporaries: 3 × 64 fp32 registers per thread): issue
//     both blocks' wgmma, wait for the first, promote it while the second still runs on the
//     tensor cores, then wait for and promote the second (that one overlaps the other
//     warpgroup's wgmma instead). Keeping no wgmma in flight across the loop's back edge is what
//     lets ptxas overlap them at all: with a temporary in flight around the loop it serializes
//     every wgmma (warning C7514). A slot is released (empty[s], one arrival per warp) once its
//     block's wgmma finished and its factors were read;
//   - the B factor of a k block is one float for the whole tile (128 columns = one block),
//     read through L1 when the block's wgmma is issued;
//   - cluster 2 (optional): two blocks on neighbouring SMs compute vertically adjacent tiles
//     with the same B tile; each loads half of it and multicasts it to both, so L2 -> SM traffic
//     per k block drops from 64 to 48 KiB per pair; a slot is free when both blocks' consumers
//     released it (16 arrivals, on the peer's barrier through mapa).
// Tiles in a grouped order (8 block rows at a time) so the tiles in flight share A rows and B
// columns in L2. Epilogue: fp32 accumulators -> bf16, stored from registers.
//
// Two more kernels below share the producer, ring protocol and promotion: 256×128 tiles
// (gemm_fp8_block_scaled_tall, optionally in 2-CTA clusters sharing A) and 128×192 tiles with
// wgmma m64n192k32 (gemm_fp8_block_scaled_wide); each has its own comment.
//
// Bytes: M·K + N·K (e4m3) + scales + 2·M·N (bf16 C); FLOPs 2·M·N·K. Ceiling: FP8 tensor cores
// (1438 TFLOP/s for cuBLASLt on the H200, ANCHORS.md). sm_90a only (wgmma, setmaxnreg): elsewhere
// the body is a trap and the variants declare Feature::wgmma.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

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

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 128;  // = the scale block: one promotion per k block
constexpr int kStages = 6;
[[maybe_unused]] constexpr int kGroupRows = 8;  // tile order: 8 block rows at a time
constexpr int kConsumers = 2;                   // consumer warpgroups, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr unsigned kATileBytes = kBlockM * kBlockK;  // 16 KiB of e4m3
constexpr unsigned kBTileBytes = kBlockN * kBlockK;  // 16 KiB
constexpr unsigned kAScaleBytes = kBlockM * 4;       // 128 floats
[[maybe_unused]] constexpr unsigned kStageBytes = kATileBytes + kBTileBytes + kAScaleBytes;
// Layout: the A and B tiles of every slot (1024-byte aligned for the swizzle), then the A
// factors of every slot, then full[] and empty[].
constexpr unsigned kTilesBytes = kStages * (kATileBytes + kBTileBytes);
constexpr unsigned kScalesOffset = kTilesBytes;
constexpr unsigned kBarriersOffset = kScalesOffset + kStages * kAScaleBytes;
constexpr unsigned kSharedBytes = kBarriersOffset + 2 * kStages * 8 + common::kSharedAlignmentSlack;

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

// What a consumer warpgroup keeps about one k block in flight: its slot and its two factors
// (this thread's rows g and g + 8 of its 16-row slab, each times the block's B factor).
struct BlockFactors {
  float top = 0.0f;
  float bottom = 0.0f;
};

template <int kCluster>
struct Ring {
  std::uint8_t* base;
  __device__ std::uint8_t* a_tile(int s) const { return base + s * (kATileBytes + kBTileBytes); }
  __device__ std::uint8_t* b_tile(int s) const { return a_tile(s) + kATileBytes; }
  __device__ float* a_scales(int s) const {
    return reinterpret_cast<float*>(base + kScalesOffset + s * kAScaleBytes);
  }
  __device__ std::uint64_t* full(int s) const {
    return reinterpret_cast<std::uint64_t*>(base + kBarriersOffset) + s;
  }
  __device__ std::uint64_t* empty(int s) const { return full(kStages) + s; }
};

// Waits for block `step`'s slot, reads its factors and issues its four wgmma into t.
template <int kCluster>
__device__ __forceinline__ BlockFactors issue_block(const Ring<kCluster>& ring, float (&t)[64],
                                                    int step, int consumer, float b_factor) {
  const int s = step % kStages;
  common::mbarrier_wait_parity(ring.full(s), static_cast<std::uint32_t>((step / kStages) & 1));
  const int lane = static_cast<int>(threadIdx.x % 32),
            warp = static_cast<int>(threadIdx.x / 32) % 4;
  const float* a_factors = ring.a_scales(s) + 64 * consumer + 16 * warp + lane / 4;
  const BlockFactors factors{a_factors[0] * b_factor, a_factors[8] * b_factor};
  // This consumer's 64 rows start 64 · 128 bytes into the A tile (512 descriptor units).
  const std::uint64_t desc_a =
      common::wgmma_descriptor_k_major_sw128(ring.a_tile(s)) + 512 * consumer;
  const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(ring.b_tile(s));
  common::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kBlockK / 32; ++kk)
    common::wgmma_m64n128k32_e4m3(t, desc_a + 2 * kk, desc_b + 2 * kk, kk > 0);
  common::wgmma_commit_group();
  return factors;
}

// acc += t · factors, then frees block `step`'s slot (its wgmma finished before this is called).
template <int kCluster>
__device__ __forceinline__ void promote_block(const Ring<kCluster>& ring, float (&acc)[64],
                                              float (&t)[64], const BlockFactors& factors,
                                              int step) {
  common::wgmma_fence_accumulators(t);
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    acc[4 * j] = fmaf(t[4 * j], factors.top, acc[4 * j]);
    acc[4 * j + 1] = fmaf(t[4 * j + 1], factors.top, acc[4 * j + 1]);
    acc[4 * j + 2] = fmaf(t[4 * j + 2], factors.bottom, acc[4 * j + 2]);
    acc[4 * j + 3] = fmaf(t[4 * j + 3], factors.bottom, acc[4 * j + 3]);
  }
  __syncwarp();  // every lane's reads of the slot (its factors) happen before the release
  if (threadIdx.x % 32 == 0) {
    const int s = step % kStages;
    if constexpr (kCluster == 1) {
      common::mbarrier_arrive(ring.empty(s));
    } else {
      for (int peer = 0; peer < kCluster; ++peer)
        common::mbarrier_arrive_cluster(ring.empty(s), static_cast<std::uint32_t>(peer));
    }
  }
}

// One warpgroup's 64×128 fp32 tile -> bf16 C, straight from registers (wgmma's layout).
[[maybe_unused]] __device__ __forceinline__ void store_tile(const float (&acc)[64],
                                                            __nv_bfloat16* c, std::size_t ldc,
                                                            std::size_t row0, std::size_t col0) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  __nv_bfloat16* top = c + (row0 + 16 * warp + lane / 4) * ldc + col0 + 2 * (lane % 4);
  __nv_bfloat16* bottom = top + 8 * ldc;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    *reinterpret_cast<__nv_bfloat162*>(top + 8 * j) =
        __floats2bfloat162_rn(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<__nv_bfloat162*>(bottom + 8 * j) =
        __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
  }
}

template <int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_fp8_block_scaled(const __grid_constant__ CUtensorMap a_map,
                          const __grid_constant__ CUtensorMap b_map,
                          const __grid_constant__ CUtensorMap a_scale_map,
                          const float* __restrict__ b_scales, __nv_bfloat16* __restrict__ c, int m,
                          int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  const Ring<kCluster> ring{common::align_shared_1024(shared_window)};
  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  int rank = 0, first = static_cast<int>(blockIdx.x), stride = static_cast<int>(gridDim.x);
  if constexpr (kCluster > 1) {
    rank = static_cast<int>(common::cluster_cta_rank());
    first = static_cast<int>(common::cluster_index_x());
    stride = static_cast<int>(common::cluster_count_x());
  }
  const int tiles_m = m / (kBlockM * kCluster), tiles_n = n / kBlockN;
  const int tiles = tiles_m * tiles_n;
  const int k_blocks = k / kBlockK;
  const int b_scale_ld =
      common::Fp8ScaleLayout{common::Fp8ScaleGranularity::block_128x128, n, k}.block_ld();

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    common::tma_prefetch_tensor_map(a_scale_map);
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(ring.full(s), 1);
      common::mbarrier_init(ring.empty(s), 4 * kConsumers * kCluster);
    }
    common::mbarrier_init_fence();
  }
  if constexpr (kCluster > 1)
    common::cluster_sync();  // every block's barriers exist before anyone copies or arrives
  else
    __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0) {
      int step = 0;
      for (int tile = first; tile < tiles; tile += stride) {
        const Tile t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows / kCluster);
        const int row0 = (t.row * kCluster + rank) * kBlockM;
        const int col0 = t.col * kBlockN;
        for (int kb = 0; kb < k_blocks; ++kb, ++step) {
          const int s = step % kStages;
          common::mbarrier_wait_parity(ring.empty(s), ((step / kStages) & 1) ^ 1);
          common::mbarrier_arrive_expect_tx(ring.full(s), kStageBytes);
          common::tma_load_2d(ring.a_tile(s), a_map, ring.full(s), kb * kBlockK, row0);
          if constexpr (kCluster == 1) {
            common::tma_load_2d(ring.b_tile(s), b_map, ring.full(s), kb * kBlockK, col0);
          } else {
            constexpr int kHalfRows = kBlockN / kCluster;
            common::tma_load_2d_multicast(ring.b_tile(s) + rank * kHalfRows * kBlockK, b_map,
                                          ring.full(s), kb * kBlockK, col0 + rank * kHalfRows,
                                          static_cast<std::uint16_t>((1u << kCluster) - 1));
          }
          common::tma_load_2d(ring.a_scales(s), a_scale_map, ring.full(s), row0, kb);
        }
      }
    }
    __syncwarp();
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    float acc[64], t0[64], t1[64];
    int base = 0;  // the ring step of this tile's first k block (runs on across tiles)
    for (int tile = first; tile < tiles; tile += stride, base += k_blocks) {
      const Tile t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows / kCluster);
      const float* tile_b_scales = b_scales + static_cast<std::size_t>(t.col) * b_scale_ld;
#pragma unroll
      for (int i = 0; i < 64; ++i)
        acc[i] = 0.0f;
      // Two k blocks per iteration into two temporaries: block kb's promotion runs while block
      // kb + 1's wgmma does. Nothing is in flight across the loop's back edge (k_blocks is even,
      // checked in prepare), so t0 and t1 stay in place and ptxas can see which group each
      // promotion waits for; block kb + 1's promotion overlaps the other warpgroup's wgmma.
      for (int kb = 0; kb < k_blocks; kb += 2) {
        const BlockFactors f0 =
            issue_block(ring, t0, base + kb, consumer, __ldg(tile_b_scales + kb));
        const BlockFactors f1 =
            issue_block(ring, t1, base + kb + 1, consumer, __ldg(tile_b_scales + kb + 1));
        common::wgmma_wait_group<1>();
        promote_block(ring, acc, t0, f0, base + kb);
        common::wgmma_wait_group<0>();
        promote_block(ring, acc, t1, f1, base + kb + 1);
      }
      const int row0 = (t.row * kCluster + rank) * kBlockM + 64 * consumer;
      store_tile(acc, c, static_cast<std::size_t>(n), static_cast<std::size_t>(row0),
                 static_cast<std::size_t>(t.col) * kBlockN);
    }
  }
  if constexpr (kCluster > 1)
    common::cluster_sync();  // no block exits while its peer may still signal or copy into it
#else
  (void)a_map, (void)b_map, (void)a_scale_map, (void)b_scales, (void)c, (void)m, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variants declare Feature::wgmma and are skipped elsewhere
#endif
}

// ---------------------------------------------------------------------------------------------
// The 256×128 rung (tile_rows 256): the same recipe, producer and ring protocol, on tiles twice as
// tall. Why: per k block an SM then loads 48 KiB (A 32 + B 16) for 2·256·128·128 FLOPs instead of
// 32 KiB for half of them, so the TMA writes into shared memory and the L2 -> SM traffic per FLOP
// drop by a quarter (64 -> 48 bytes per tensor-core cycle at m64n128k32's 64 cycles), and every
// consumer wgmma still reads A and B from shared memory as before. Each consumer warpgroup owns
// 128 rows as two 64-row fragments with 64 fp32 accumulators each (128 registers) and one
// 64-register temporary: per k block and fragment it issues the four wgmma into the temporary,
// waits for them and promotes (64 FFMA per thread), then does the same for its second fragment.
// Its own tensor-core work pauses during each promotion; the other consumer's wgmma (queued on
// the same SM sub-partitions) fill that gap, since one fragment's wgmma take 256 tensor cycles
// and a promotion ~64 issue slots per warp. 192 fp32 registers of accumulator and temporary fit
// under setmaxnreg 232 with room for addresses; two temporaries would not (256).
// Cluster 2 (optional): two blocks on neighbouring SMs compute horizontally adjacent tiles with
// the same A tile; each loads 128 of its 256 rows and multicasts them to both, so L2 -> SM traffic
// per k block drops from 96 to 64 KiB per pair (A is the larger operand here); a slot is free when
// both blocks' consumers released it (16 arrivals, on the peer's barrier through mapa).
constexpr int kTallBlockM = 256;
constexpr int kTallStages = 4;
constexpr unsigned kTallATileBytes = kTallBlockM * kBlockK;  // 32 KiB
constexpr unsigned kTallAScaleBytes = kTallBlockM * 4;       // 256 floats
[[maybe_unused]] constexpr unsigned kTallStageBytes =
    kTallATileBytes + kBTileBytes + kTallAScaleBytes;
constexpr unsigned kTallTilesBytes = kTallStages * (kTallATileBytes + kBTileBytes);
constexpr unsigned kTallBarriersOffset = kTallTilesBytes + kTallStages * kTallAScaleBytes;
constexpr unsigned kTallSharedBytes =
    kTallBarriersOffset + 2 * kTallStages * 8 + common::kSharedAlignmentSlack;

template <int kRingStages>
struct TallRing {
  std::uint8_t* base;
  __device__ std::uint8_t* a_tile(int s) const {
    return base + s * (kTallATileBytes + kBTileBytes);
  }
  __device__ std::uint8_t* b_tile(int s) const { return a_tile(s) + kTallATileBytes; }
  __device__ float* a_scales(int s) const {
    return reinterpret_cast<float*>(base + kRingStages * (kTallATileBytes + kBTileBytes) +
                                    s * kTallAScaleBytes);
  }
  __device__ std::uint64_t* full(int s) const {
    return reinterpret_cast<std::uint64_t*>(
               base + kRingStages * (kTallATileBytes + kBTileBytes + kTallAScaleBytes)) +
           s;
  }
  __device__ std::uint64_t* empty(int s) const { return full(kRingStages) + s; }
};

template <int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_fp8_block_scaled_tall(const __grid_constant__ CUtensorMap a_map,
                               const __grid_constant__ CUtensorMap b_map,
                               const __grid_constant__ CUtensorMap a_scale_map,
                               const float* __restrict__ b_scales, __nv_bfloat16* __restrict__ c,
                               int m, int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  const TallRing<kTallStages> ring{common::align_shared_1024(shared_window)};
  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  int rank = 0, first = static_cast<int>(blockIdx.x), stride = static_cast<int>(gridDim.x);
  if constexpr (kCluster > 1) {
    rank = static_cast<int>(common::cluster_cta_rank());
    first = static_cast<int>(common::cluster_index_x());
    stride = static_cast<int>(common::cluster_count_x());
  }
  // Clustered, a tile index names a pair of horizontally adjacent tiles (one per block).
  const int tiles_m = m / kTallBlockM, tiles_n = n / (kBlockN * kCluster);
  const int tiles = tiles_m * tiles_n;
  const int k_blocks = k / kBlockK;
  const int b_scale_ld =
      common::Fp8ScaleLayout{common::Fp8ScaleGranularity::block_128x128, n, k}.block_ld();
  // Same L2 footprint of the tiles in flight as the 128-row rung's 8 block rows.
  constexpr int kTallGroupRows = kGroupRows / 2;

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    common::tma_prefetch_tensor_map(a_scale_map);
    for (int s = 0; s < kTallStages; ++s) {
      common::mbarrier_init(ring.full(s), 1);
      common::mbarrier_init(ring.empty(s), 4 * kConsumers * kCluster);
    }
    common::mbarrier_init_fence();
  }
  if constexpr (kCluster > 1)
    common::cluster_sync();  // every block's barriers exist before anyone copies or arrives
  else
    __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0) {
      int step = 0;
      for (int tile = first; tile < tiles; tile += stride) {
        const Tile t = grouped_tile(tile, tiles_m, tiles_n, kTallGroupRows);
        const int row0 = t.row * kTallBlockM, col0 = (t.col * kCluster + rank) * kBlockN;
        for (int kb = 0; kb < k_blocks; ++kb, ++step) {
          const int s = step % kTallStages;
          common::mbarrier_wait_parity(ring.empty(s), ((step / kTallStages) & 1) ^ 1);
          common::mbarrier_arrive_expect_tx(ring.full(s), kTallStageBytes);
          if constexpr (kCluster == 1) {
            common::tma_load_2d(ring.a_tile(s), a_map, ring.full(s), kb * kBlockK, row0);
          } else {
            constexpr int kPartRows = kTallBlockM / kCluster;
            common::tma_load_2d_multicast(ring.a_tile(s) + rank * kPartRows * kBlockK, a_map,
                                          ring.full(s), kb * kBlockK, row0 + rank * kPartRows,
                                          static_cast<std::uint16_t>((1u << kCluster) - 1));
          }
          common::tma_load_2d(ring.b_tile(s), b_map, ring.full(s), kb * kBlockK, col0);
          common::tma_load_2d(ring.a_scales(s), a_scale_map, ring.full(s), row0, kb);
        }
      }
    }
    __syncwarp();
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32, warp = (tid / 32) % 4;
    float acc0[64], acc1[64], temp[64];
    int base = 0;  // the ring step of this tile's first k block (runs on across tiles)
    // temp = one 64-row fragment × the B tile over one k block: four wgmma m64n128k32, waited for.
    const auto multiply_fragment = [&](std::uint64_t desc_a, std::uint64_t desc_b) {
      common::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockK / 32; ++kk)
        common::wgmma_m64n128k32_e4m3(temp, desc_a + 2 * kk, desc_b + 2 * kk, kk > 0);
      common::wgmma_commit_group();
      common::wgmma_wait_group<0>();
      common::wgmma_fence_accumulators(temp);
    };
    for (int tile = first; tile < tiles; tile += stride, base += k_blocks) {
      const Tile t = grouped_tile(tile, tiles_m, tiles_n, kTallGroupRows);
      const int col = t.col * kCluster + rank;
      const float* tile_b_scales = b_scales + static_cast<std::size_t>(col) * b_scale_ld;
#pragma unroll
      for (int i = 0; i < 64; ++i) {
        acc0[i] = 0.0f;
        acc1[i] = 0.0f;
      }
      float b_factor = __ldg(tile_b_scales);
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int step = base + kb, s = step % kTallStages;
        // Next block's B factor now, so its global load is not waited for at the promotion.
        const float next_b_factor = __ldg(tile_b_scales + min(kb + 1, k_blocks - 1));
        common::mbarrier_wait_parity(ring.full(s),
                                     static_cast<std::uint32_t>((step / kTallStages) & 1));
        // This consumer's rows: 128 · consumer + 64 · fragment + 16 · warp + lane / 4 (+ 8).
        const float* a_factors = ring.a_scales(s) + 128 * consumer + 16 * warp + lane / 4;
        const float f0_top = a_factors[0] * b_factor, f0_bottom = a_factors[8] * b_factor;
        const float f1_top = a_factors[64] * b_factor, f1_bottom = a_factors[72] * b_factor;
        // 64 rows of 128 bytes are 512 descriptor units (16 bytes each).
        const std::uint64_t desc_a =
            common::wgmma_descriptor_k_major_sw128(ring.a_tile(s)) + 1024 * consumer;
        const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(ring.b_tile(s));

        multiply_fragment(desc_a, desc_b);
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          acc0[4 * j] = fmaf(temp[4 * j], f0_top, acc0[4 * j]);
          acc0[4 * j + 1] = fmaf(temp[4 * j + 1], f0_top, acc0[4 * j + 1]);
          acc0[4 * j + 2] = fmaf(temp[4 * j + 2], f0_bottom, acc0[4 * j + 2]);
          acc0[4 * j + 3] = fmaf(temp[4 * j + 3], f0_bottom, acc0[4 * j + 3]);
        }

        multiply_fragment(desc_a + 512, desc_b);
        // The slot's tiles and factors are no longer read: release it before promoting, so the
        // producer's next copy into it overlaps this promotion.
        __syncwarp();
        if (lane == 0) {
          if constexpr (kCluster == 1) {
            common::mbarrier_arrive(ring.empty(s));
          } else {
            for (int peer = 0; peer < kCluster; ++peer)
              common::mbarrier_arrive_cluster(ring.empty(s), static_cast<std::uint32_t>(peer));
          }
        }
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          acc1[4 * j] = fmaf(temp[4 * j], f1_top, acc1[4 * j]);
          acc1[4 * j + 1] = fmaf(temp[4 * j + 1], f1_top, acc1[4 * j + 1]);
          acc1[4 * j + 2] = fmaf(temp[4 * j + 2], f1_bottom, acc1[4 * j + 2]);
          acc1[4 * j + 3] = fmaf(temp[4 * j + 3], f1_bottom, acc1[4 * j + 3]);
        }
        b_factor = next_b_factor;
      }
      const std::size_t row0 = static_cast<std::size_t>(t.row) * kTallBlockM + 128 * consumer;
      const std::size_t col0 = static_cast<std::size_t>(col) * kBlockN;
      store_tile(acc0, c, static_cast<std::size_t>(n), row0, col0);
      store_tile(acc1, c, static_cast<std::size_t>(n), row0 + 64, col0);
    }
  }
  if constexpr (kCluster > 1)
    common::cluster_sync();  // no block exits while its peer may still signal or copy into it
#else
  (void)a_map, (void)b_map, (void)a_scale_map, (void)b_scales, (void)c, (void)m, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variants declare Feature::wgmma and are skipped elsewhere
#endif
}

// ---------------------------------------------------------------------------------------------
// The 128×192 rung (tile_cols 192): both kernels above spend ~386 cycles per group of four
// wgmma m64n128k32 that take 256 tensor-core cycles, whatever the promotion's schedule (ncu on the
// H200: tensor pipe ~66% on 128×128 and 256×128 tiles alike, L2 at 53-71%; consumers forced to
// take turns on the tensor cores were slower still, README), which points at the instruction's
// width: every wgmma reads its B rows from shared memory again, so shared-memory bytes per MAC
// are 1/64 + 1/N (N = 128: 96 B per cycle at the FP8 rate, before the TMA writes). Here each
// consumer warpgroup issues m64n192k32 (96 accumulator registers, 96 tensor-core cycles per
// instruction instead of 64, B read 192 rows per A read) on its 64 rows of a 128×192 tile: 96
// accumulators + one 96-register temporary fit under setmaxnreg 232. Per k block and consumer: four
// wgmma into the temporary, wait, 96 FFMA promotion (the other consumer's group runs meanwhile). A
// 192-column tile spans two 128-column B scale blocks, split at column 128 or 64 of the tile (tile
// start mod 128 is 0 or 64): the promotion takes the first or second block's factor per accumulator
// column group, chosen at compile time in two unrolled copies. N need not be a multiple of 192: the
// last column of tiles is partial (TMA fills the rows past N with zeros, the stores skip the
// columns past N). 5 ring slots of 40.5 KiB.
constexpr int kWideBlockN = 192;
constexpr int kWideStages = 5;
constexpr unsigned kWideBTileBytes = kWideBlockN * kBlockK;  // 24 KiB
[[maybe_unused]] constexpr unsigned kWideStageBytes = kATileBytes + kWideBTileBytes + kAScaleBytes;
constexpr unsigned kWideSharedBytes = kWideStages * (kATileBytes + kWideBTileBytes + kAScaleBytes) +
                                      2 * kWideStages * 8 + common::kSharedAlignmentSlack;

template <int kRingStages>
struct WideRing {
  std::uint8_t* base;
  __device__ std::uint8_t* a_tile(int s) const {
    return base + s * (kATileBytes + kWideBTileBytes);
  }
  __device__ std::uint8_t* b_tile(int s) const { return a_tile(s) + kATileBytes; }
  __device__ float* a_scales(int s) const {
    return reinterpret_cast<float*>(base + kRingStages * (kATileBytes + kWideBTileBytes) +
                                    s * kAScaleBytes);
  }
  __device__ std::uint64_t* full(int s) const {
    return reinterpret_cast<std::uint64_t*>(
               base + kRingStages * (kATileBytes + kWideBTileBytes + kAScaleBytes)) +
           s;
  }
  __device__ std::uint64_t* empty(int s) const { return full(kRingStages) + s; }
};

// acc += temp · factor, the factor of the first B scale block for column groups j < kFirstGroups
// (8 columns each), of the second for the rest; top rows (registers 4j, 4j+1) and bottom rows
// (4j+2, 4j+3) have their own A factors.
template <int kFirstGroups>
__device__ __forceinline__ void promote_wide(float (&acc)[96], const float (&temp)[96],
                                             float top_first, float bottom_first, float top_second,
                                             float bottom_second) {
#pragma unroll
  for (int j = 0; j < 24; ++j) {
    const float top = j < kFirstGroups ? top_first : top_second;
    const float bottom = j < kFirstGroups ? bottom_first : bottom_second;
    acc[4 * j] = fmaf(temp[4 * j], top, acc[4 * j]);
    acc[4 * j + 1] = fmaf(temp[4 * j + 1], top, acc[4 * j + 1]);
    acc[4 * j + 2] = fmaf(temp[4 * j + 2], bottom, acc[4 * j + 2]);
    acc[4 * j + 3] = fmaf(temp[4 * j + 3], bottom, acc[4 * j + 3]);
  }
}

// One warpgroup's 64×192 fp32 tile -> bf16 C, skipping the columns at or past n.
template <int kUnused = 0>
__device__ __forceinline__ void store_wide_tile(const float (&acc)[96], __nv_bfloat16* c,
                                                std::size_t ldc, std::size_t row0, int col0,
                                                int n) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  __nv_bfloat16* top = c + (row0 + 16 * warp + lane / 4) * ldc + col0 + 2 * (lane % 4);
  __nv_bfloat16* bottom = top + 8 * ldc;
#pragma unroll
  for (int j = 0; j < 24; ++j) {
    if (col0 + 8 * j + 2 * (lane % 4) < n) {  // n is even: a pair is all in or all out
      *reinterpret_cast<__nv_bfloat162*>(top + 8 * j) =
          __floats2bfloat162_rn(acc[4 * j], acc[4 * j + 1]);
      *reinterpret_cast<__nv_bfloat162*>(bottom + 8 * j) =
          __floats2bfloat162_rn(acc[4 * j + 2], acc[4 * j + 3]);
    }
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    gemm_fp8_block_scaled_wide(const __grid_constant__ CUtensorMap a_map,
                               const __grid_constant__ CUtensorMap b_map,
                               const __grid_constant__ CUtensorMap a_scale_map,
                               const float* __restrict__ b_scales, __nv_bfloat16* __restrict__ c,
                               int m, int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  const WideRing<kWideStages> ring{common::align_shared_1024(shared_window)};
  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  const int first = static_cast<int>(blockIdx.x), stride = static_cast<int>(gridDim.x);
  const int tiles_m = m / kBlockM, tiles_n = (n + kWideBlockN - 1) / kWideBlockN;
  const int tiles = tiles_m * tiles_n;
  const int k_blocks = k / kBlockK;
  const int b_scale_ld =
      common::Fp8ScaleLayout{common::Fp8ScaleGranularity::block_128x128, n, k}.block_ld();

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    common::tma_prefetch_tensor_map(a_scale_map);
    for (int s = 0; s < kWideStages; ++s) {
      common::mbarrier_init(ring.full(s), 1);
      common::mbarrier_init(ring.empty(s), 4 * kConsumers);
    }
    common::mbarrier_init_fence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0) {
      int step = 0;
      for (int tile = first; tile < tiles; tile += stride) {
        const Tile t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows);
        const int row0 = t.row * kBlockM, col0 = t.col * kWideBlockN;
        for (int kb = 0; kb < k_blocks; ++kb, ++step) {
          const int s = step % kWideStages;
          common::mbarrier_wait_parity(ring.empty(s), ((step / kWideStages) & 1) ^ 1);
          // The full box counts even where it runs past N (those rows arrive as zeros).
          common::mbarrier_arrive_expect_tx(ring.full(s), kWideStageBytes);
          common::tma_load_2d(ring.a_tile(s), a_map, ring.full(s), kb * kBlockK, row0);
          common::tma_load_2d(ring.b_tile(s), b_map, ring.full(s), kb * kBlockK, col0);
          common::tma_load_2d(ring.a_scales(s), a_scale_map, ring.full(s), row0, kb);
        }
      }
    }
    __syncwarp();
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32, warp = (tid / 32) % 4;
    const int scale_blocks_n = n / kBlockN;
    float acc[96], temp[96];
    int base = 0;  // the ring step of this tile's first k block (runs on across tiles)
    for (int tile = first; tile < tiles; tile += stride, base += k_blocks) {
      const Tile t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows);
      const int col0 = t.col * kWideBlockN;
      // The tile's two B scale blocks and the tile column where the second begins (128 or 64);
      // past N the second is clamped to the last block (its products are zeros, never stored).
      const int first_block = col0 / kBlockN;
      const int second_block = min(first_block + 1, scale_blocks_n - 1);
      const bool split_at_128 = col0 % kBlockN == 0;
      const float* first_scales = b_scales + static_cast<std::size_t>(first_block) * b_scale_ld;
      const float* second_scales = b_scales + static_cast<std::size_t>(second_block) * b_scale_ld;
#pragma unroll
      for (int i = 0; i < 96; ++i)
        acc[i] = 0.0f;
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int step = base + kb, s = step % kWideStages;
        const float b_first = __ldg(first_scales + kb), b_second = __ldg(second_scales + kb);
        common::mbarrier_wait_parity(ring.full(s),
                                     static_cast<std::uint32_t>((step / kWideStages) & 1));
        const float* a_factors = ring.a_scales(s) + 64 * consumer + 16 * warp + lane / 4;
        const float a_top = a_factors[0], a_bottom = a_factors[8];
        const std::uint64_t desc_a =
            common::wgmma_descriptor_k_major_sw128(ring.a_tile(s)) + 512 * consumer;
        const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(ring.b_tile(s));
        common::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBlockK / 32; ++kk)
          common::wgmma_m64n192k32_e4m3(temp, desc_a + 2 * kk, desc_b + 2 * kk, kk > 0);
        common::wgmma_commit_group();
        common::wgmma_wait_group<0>();
        common::wgmma_fence_accumulators(temp);
        // The slot's tiles and factors are no longer read: release it before promoting.
        __syncwarp();
        if (lane == 0)
          common::mbarrier_arrive(ring.empty(s));
        const float top_first = a_top * b_first, bottom_first = a_bottom * b_first;
        const float top_second = a_top * b_second, bottom_second = a_bottom * b_second;
        if (split_at_128)
          promote_wide<16>(acc, temp, top_first, bottom_first, top_second, bottom_second);
        else
          promote_wide<8>(acc, temp, top_first, bottom_first, top_second, bottom_second);
      }
      store_wide_tile(acc, c, static_cast<std::size_t>(n),
                      static_cast<std::size_t>(t.row) * kBlockM + 64 * consumer, col0, n);
    }
  }
#else
  (void)a_map, (void)b_map, (void)a_scale_map, (void)b_scales, (void)c, (void)m, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variants declare Feature::wgmma and are skipped elsewhere
#endif
}

using KernelFunction = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, const float*, __nv_bfloat16*,
                                int, int, int);

// The kernel for a launch's tile shape and cluster size.
KernelFunction kernel_for(int tile_rows, int tile_cols, int cluster) {
  if (tile_cols == kWideBlockN)
    return gemm_fp8_block_scaled_wide;
  if (tile_rows == kTallBlockM)
    return cluster == 1 ? gemm_fp8_block_scaled_tall<1> : gemm_fp8_block_scaled_tall<2>;
  return cluster == 1 ? gemm_fp8_block_scaled<1> : gemm_fp8_block_scaled<2>;
}

// Opts the kernel into its shared memory and sizes the persistent grid: one block per SM, or
// as many clusters as can be resident at once (GPCs need not split evenly into pairs).
void size_persistent_grid(Fp8BlockScaledGemmLaunch& launch, const cudaDeviceProp& device,
                          int tiles) {
  const auto fail = [](const char* call, cudaError_t status) {
    throw std::runtime_error(std::string("gemm_fp8_block_scaled: ") + call + ": " +
                             cudaGetErrorString(status));
  };
  const KernelFunction kernel = kernel_for(launch.tile_rows, launch.tile_cols, launch.cluster);
  cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(launch.shared_bytes));
  if (status != cudaSuccess)
    fail("cudaFuncSetAttribute", status);
  int blocks = std::min(tiles, device.multiProcessorCount);
  if (launch.cluster > 1) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(device.multiProcessorCount));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = launch.shared_bytes;
    cudaLaunchAttribute cluster_dims{};
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = static_cast<unsigned>(launch.cluster);
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
    int resident = 0;
    status = cudaOccupancyMaxActiveClusters(&resident, kernel, &config);
    if (status != cudaSuccess)
      fail("cudaOccupancyMaxActiveClusters", status);
    if (resident < 1)
      throw std::runtime_error("gemm_fp8_block_scaled: no 2-block cluster of this kernel fits on "
                               "the GPU (cudaOccupancyMaxActiveClusters returned 0)");
    blocks = launch.cluster * std::min(tiles / launch.cluster, resident);
  }
  launch.grid = dim3(static_cast<unsigned>(blocks));
}

}  // namespace

Fp8BlockScaledGemmLaunch prepare_gemm_fp8_block_scaled(const Fp8BlockScaledGemmArgs& args,
                                                       const cudaDeviceProp& device, int cluster,
                                                       int tile_rows, int tile_cols) {
  if (cluster != 1 && cluster != 2)
    throw std::invalid_argument("gemm_fp8_block_scaled: cluster must be 1 or 2");
  if (tile_rows != kBlockM && tile_rows != kTallBlockM)
    throw std::invalid_argument("gemm_fp8_block_scaled: tile_rows must be 128 or 256, got " +
                                std::to_string(tile_rows));
  if (tile_cols != kBlockN && tile_cols != kWideBlockN)
    throw std::invalid_argument("gemm_fp8_block_scaled: tile_cols must be 128 or 192, got " +
                                std::to_string(tile_cols));
  const bool wide = tile_cols == kWideBlockN;
  if (wide && (tile_rows != kBlockM || cluster != 1))
    throw std::invalid_argument("gemm_fp8_block_scaled: 192-column tiles exist only with 128 "
                                "rows and cluster 1");
  if (!args.a || !args.b || !args.a_scales || !args.b_scales || !args.c)
    throw std::invalid_argument("gemm_fp8_block_scaled: null operand or scale pointer");
  // A cluster pairs tiles vertically (128-row tiles: they share B) or horizontally (256-row
  // tiles: they share A).
  const bool tall = tile_rows == kTallBlockM;
  const int m_multiple = tall ? tile_rows : tile_rows * cluster;
  const int n_multiple = tall ? kBlockN * cluster : kBlockN;
  if (args.m <= 0 || args.n <= 0 || args.k <= 0 || args.m % m_multiple != 0 ||
      args.n % n_multiple != 0 || args.k % (2 * kBlockK) != 0)
    throw std::invalid_argument(
        "gemm_fp8_block_scaled: M=" + std::to_string(args.m) + " N=" + std::to_string(args.n) +
        " K=" + std::to_string(args.k) + " must be multiples of " + std::to_string(m_multiple) +
        ", " + std::to_string(n_multiple) +
        " and 256 (whole tiles, whole scale blocks and an "
        "even number of k blocks; the kernel has no tail handling): pad the problem");
  const unsigned shared_bytes = wide ? kWideSharedBytes : tall ? kTallSharedBytes : kSharedBytes;
  if (device.sharedMemPerBlockOptin < shared_bytes)
    throw std::invalid_argument("gemm_fp8_block_scaled: needs " + std::to_string(shared_bytes) +
                                " bytes of shared memory per block; this GPU offers " +
                                std::to_string(device.sharedMemPerBlockOptin));
  Fp8BlockScaledGemmLaunch launch;
  launch.args = args;
  launch.cluster = cluster;
  launch.tile_rows = tile_rows;
  launch.tile_cols = tile_cols;
  launch.block = dim3(kThreads);
  launch.shared_bytes = shared_bytes;
  // The multicast operand is loaded in parts, one per block of the cluster.
  const int a_box_rows = tall ? tile_rows / cluster : tile_rows;
  const int b_box_rows = wide ? kWideBlockN : tall ? kBlockN : kBlockN / cluster;
  launch.a_map = common::encode_tiled_matrix_2d({.base = args.a,
                                                 .dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                                 .element_bytes = 1,
                                                 .rows = static_cast<std::uint64_t>(args.m),
                                                 .cols = static_cast<std::uint64_t>(args.k),
                                                 .box_rows = static_cast<std::uint32_t>(a_box_rows),
                                                 .box_cols = kBlockK});
  launch.b_map = common::encode_tiled_matrix_2d({.base = args.b,
                                                 .dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                                 .element_bytes = 1,
                                                 .rows = static_cast<std::uint64_t>(args.n),
                                                 .cols = static_cast<std::uint64_t>(args.k),
                                                 .box_rows = static_cast<std::uint32_t>(b_box_rows),
                                                 .box_cols = kBlockK});
  launch.a_scale_map =
      common::encode_tiled_matrix_2d({.base = args.a_scales,
                                      .dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                      .element_bytes = 4,
                                      .rows = static_cast<std::uint64_t>(args.k / kBlockK),
                                      .cols = static_cast<std::uint64_t>(args.m),
                                      .box_rows = 1,
                                      .box_cols = static_cast<std::uint32_t>(tile_rows),
                                      .swizzle = CU_TENSOR_MAP_SWIZZLE_NONE});
  size_persistent_grid(launch, device,
                       (args.m / tile_rows) * ((args.n + tile_cols - 1) / tile_cols));
  return launch;
}

cudaError_t launch_gemm_fp8_block_scaled(const Fp8BlockScaledGemmLaunch& launch,
                                         cudaStream_t stream) {
  const Fp8BlockScaledGemmArgs& a = launch.args;
  const KernelFunction kernel = kernel_for(launch.tile_rows, launch.tile_cols, launch.cluster);
  if (launch.cluster == 1) {
    kernel<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        launch.a_map, launch.b_map, launch.a_scale_map, a.b_scales, a.c, a.m, a.n, a.k);
    return cudaGetLastError();
  }
  cudaLaunchConfig_t config{};
  config.gridDim = launch.grid;
  config.blockDim = launch.block;
  config.dynamicSmemBytes = launch.shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute cluster_dims{};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim.x = static_cast<unsigned>(launch.cluster);
  cluster_dims.val.clusterDim.y = 1;
  cluster_dims.val.clusterDim.z = 1;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, launch.a_map, launch.b_map, launch.a_scale_map,
                            a.b_scales, a.c, a.m, a.n, a.k);
}

}  // namespace aisp::ch19
