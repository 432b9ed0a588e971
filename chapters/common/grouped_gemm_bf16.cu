// The grouped BF16 GEMM (grouped_gemm_bf16.cuh): one persistent launch for all groups.
// What it adds to chapter 10's persistent warp-specialized kernel (gemm_bf16_persistent_kernel.cu:
// a producer warpgroup issuing TMA copies into a 4-slot mbarrier ring, two consumer warpgroups
// splitting a 128×256 tile, wgmma.m64n256k16, one block per SM) is a device-side tile scheduler
// over every group's tiles:
//   - each block reads the groups' row offsets from global memory once and builds, in shared
//     memory, the first tile index of every group: group g has ceil(rows_g / 128) · (N / 256)
//     tiles, and a warp prefix-sums those counts 32 groups at a time;
//   - the tiles of all groups form one sequence (group by group; within a group down the 128-row
//     blocks first, so the blocks running at once share each 256-column slice of B_g in L2); block
//     b walks tiles b, b + gridDim.x, ..., finding a tile's group by binary search in shared
//     memory — the producer and both consumers compute the same sequence, and the ring and its
//     phases run on across tiles and groups;
//   - a tile's rows past its group's end are computed (TMA fetches whatever rows follow: the next
//     group's, or zeros past the matrix) and masked at the store. The waste is the last, partial
//     128-row block of each group: ~64 rows per group on average.
// There is no launch per group, no wave tail per group and no host round trip for the sizes: with
// 64 experts of ~512 rows, per-group GEMMs give each launch 4 × 8 tiles of this size (32 blocks for
// 132 SMs) or force smaller, less efficient tiles; here all ~2300 tiles share one schedule.
// Bytes: 2·(rows·K + groups·N·K + rows·N); FLOPs: 2·rows·N·K. Ceiling: BF16 tensor.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and callers declare
// Feature::wgmma and Feature::tma.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gemm_epilogue_wgmma.cuh"
#include "grouped_gemm_bf16.cuh"
#include "mbarrier.cuh"
#include "setmaxnreg.cuh"
#include "shared_alignment.cuh"
#include "tensor_map.hpp"
#include "tma.cuh"
#include "wgmma.cuh"

namespace aisp::common {
namespace {

constexpr int kBlockM = kGroupedGemmTileM;
constexpr int kBlockN = kGroupedGemmTileN;
constexpr int kBlockK = kGroupedGemmTileK;
constexpr int kStages = 4;
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
[[maybe_unused]] constexpr int kConsumerWarps = 4 * kConsumers;
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;  // 16 KiB
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;  // 32 KiB
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes = kStages * kSlotBytes + 2 * kStages * 8 + kSharedAlignmentSlack;

// The scheduler's view of the groups, in shared memory.
struct GroupTable {
  int row_start[kGroupedGemmMaxGroups + 1];   // clamped row offsets
  int tile_start[kGroupedGemmMaxGroups + 1];  // first tile of each group; [groups] = all tiles
};

struct GroupedTile {
  int group = 0;
  int row0 = 0;     // first row of A and C
  int row_end = 0;  // the group's end: rows at or past it are not stored
  int col0 = 0;     // first column of C (row of B_g)
};

[[maybe_unused]] __device__ __forceinline__ int clamp_rows(int value, int total_rows) {
  return min(max(value, 0), total_rows);
}

[[maybe_unused]] __device__ __forceinline__ int group_rows(const GroupTable& table, int g) {
  return max(table.row_start[g + 1] - table.row_start[g], 0);
}

// Fills the table from the device offsets. Called by all threads of the block.
[[maybe_unused]] __device__ void build_group_table(GroupTable& table, const int* row_offsets,
                                                   int groups, int total_rows, int tiles_n) {
  const int tid = static_cast<int>(threadIdx.x);
  for (int g = tid; g <= groups; g += static_cast<int>(blockDim.x))
    table.row_start[g] = clamp_rows(row_offsets[g], total_rows);
  __syncthreads();
  if (tid < 32) {  // warp 0: prefix sum of the tile counts, 32 groups at a time
    int carry = 0;
    for (int first = 0; first < groups; first += 32) {
      const int g = first + tid;
      const int count = g < groups ? (group_rows(table, g) + kBlockM - 1) / kBlockM * tiles_n : 0;
      int sum = count;
#pragma unroll
      for (int offset = 1; offset < 32; offset *= 2) {
        const int other = __shfl_up_sync(0xffffffffu, sum, offset);
        if (tid >= offset)
          sum += other;
      }
      if (g < groups)
        table.tile_start[g + 1] = carry + sum;
      carry += __shfl_sync(0xffffffffu, sum, 31);
    }
    if (tid == 0)
      table.tile_start[0] = 0;
  }
  __syncthreads();
}

// Tile `tile` of the sequence: the last group whose first tile is at or before it (empty groups
// share their first tile index with the next group, so "last" skips them).
[[maybe_unused]] __device__ __forceinline__ GroupedTile locate_tile(const GroupTable& table,
                                                                    int groups, int tile) {
  int lo = 0, hi = groups - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (table.tile_start[mid] <= tile)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int local = tile - table.tile_start[lo];
  const int tiles_m = (group_rows(table, lo) + kBlockM - 1) / kBlockM;
  GroupedTile t;
  t.group = lo;
  t.row0 = table.row_start[lo] + (local % tiles_m) * kBlockM;
  t.row_end = table.row_start[lo] + group_rows(table, lo);
  t.col0 = (local / tiles_m) * kBlockN;
  return t;
}

__global__ void __launch_bounds__(kThreads, 1)
    grouped_gemm_bf16(const __grid_constant__ CUtensorMap a_map,
                      const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* __restrict__ c,
                      const int* __restrict__ row_offsets, int groups, int total_rows, int n,
                      int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  __shared__ GroupTable table;
  std::uint8_t* base = align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kStages * kSlotBytes);
  std::uint64_t* empty = full + kStages;
  const auto a_slot = [&](int s) { return base + s * kSlotBytes; };
  const auto b_slot = [&](int s) { return base + s * kSlotBytes + kATileBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  const int k_steps = k / kBlockK;

  if (tid == 0) {
    tma_prefetch_tensor_map(a_map);
    tma_prefetch_tensor_map(b_map);
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kConsumerWarps);
    }
    mbarrier_init_fence();
  }
  build_group_table(table, row_offsets, groups, total_rows, n / kBlockN);  // syncs the block
  const int tiles = table.tile_start[groups];

  if (warpgroup == 0) {
    setmaxnreg_decrease<40>();
    if (tid == 0) {
      int step = 0;  // runs on across tiles and groups, like the ring's phases
      for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
           tile += static_cast<int>(gridDim.x)) {
        const GroupedTile t = locate_tile(table, groups, tile);
        const int b_row = t.group * n + t.col0;
        for (int kstep = 0; kstep < k_steps; ++kstep, ++step) {
          const int s = step % kStages;
          const auto round = static_cast<std::uint32_t>(step / kStages);
          mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);
          // Rows past the matrix are zero-filled and still count towards the slot's bytes.
          mbarrier_arrive_expect_tx(&full[s], kSlotBytes);
          tma_load_2d(a_slot(s), a_map, &full[s], kstep * kBlockK, t.row0);
          tma_load_2d(b_slot(s), b_map, &full[s], kstep * kBlockK, b_row);
        }
      }
    }
  } else {
    setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32;
    float d[128];
    int step = 0;
    for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
         tile += static_cast<int>(gridDim.x)) {
      const GroupedTile t = locate_tile(table, groups, tile);
      for (int kstep = 0; kstep < k_steps; ++kstep, ++step) {
        const int s = step % kStages;
        mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((step / kStages) % 2));
        const std::uint64_t desc_a = wgmma_descriptor_k_major_sw128(a_slot(s)) + 512 * consumer;
        const std::uint64_t desc_b = wgmma_descriptor_k_major_sw128(b_slot(s));
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk)
          wgmma_m64n256k16_bf16(d, desc_a + 2 * kk, desc_b + 2 * kk, kstep > 0 || kk > 0);
        wgmma_commit_group();
        wgmma_wait_group<1>();
        if (kstep > 0 && lane == 0)
          mbarrier_arrive(&empty[(step - 1) % kStages]);
      }
      wgmma_wait_group<0>();
      if (lane == 0)
        mbarrier_arrive(&empty[(step - 1) % kStages]);
      wgmma_fence_accumulators(d);
      store_wgmma_tile_bf16<256>(d, c, static_cast<std::size_t>(n),
                                 static_cast<std::size_t>(t.row0 + 64 * consumer),
                                 static_cast<std::size_t>(t.col0), EpilogueIdentity{},
                                 static_cast<std::size_t>(t.row_end));
    }
  }
#else
  (void)a_map, (void)b_map, (void)c, (void)row_offsets, (void)groups, (void)total_rows, (void)n,
      (void)k;
  __trap();  // wgmma is sm_90a only: callers declare Feature::wgmma and are skipped elsewhere
#endif
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

GroupedGemmBf16Launch prepare_grouped_gemm_bf16(const GroupedGemmBf16Args& args,
                                                const cudaDeviceProp& device) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("grouped_gemm_bf16: " + what);
  };
  if (args.a == nullptr || args.b == nullptr || args.c == nullptr || args.row_offsets == nullptr)
    fail("null A, B, C or row_offsets");
  if (!aligned16(args.a) || !aligned16(args.b) || !aligned16(args.c))
    fail("A, B and C must be 16-byte aligned (TMA and 16-byte rows)");
  if (args.groups < 1 || args.groups > kGroupedGemmMaxGroups)
    fail("groups = " + std::to_string(args.groups) + ": must be 1.." +
         std::to_string(kGroupedGemmMaxGroups) + " (the scheduler's table is in shared memory)");
  if (args.total_rows < 1)
    fail("total_rows must be positive");
  if (args.n <= 0 || args.n % kBlockN != 0 || args.k <= 0 || args.k % kBlockK != 0)
    fail("N = " + std::to_string(args.n) + ", K = " + std::to_string(args.k) +
         ": N must be a multiple of " + std::to_string(kBlockN) + " and K of " +
         std::to_string(kBlockK) + " (this kernel masks rows only): pad the weights");
  if (static_cast<long long>(args.groups) * args.n > (1ll << 31) - 1)
    fail("groups · N must fit TMA's 32-bit coordinates");
  if (device.sharedMemPerBlockOptin < kSharedBytes + sizeof(GroupTable))
    fail("needs " + std::to_string(kSharedBytes + sizeof(GroupTable)) +
         " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      grouped_gemm_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("grouped_gemm_bf16: cudaFuncSetAttribute: ") +
                             cudaGetErrorString(status));
  GroupedGemmBf16Launch launch;
  launch.args = args;
  launch.a_map = encode_tiled_matrix_2d({.base = args.a,
                                         .rows = static_cast<std::uint64_t>(args.total_rows),
                                         .cols = static_cast<std::uint64_t>(args.k),
                                         .box_rows = kBlockM,
                                         .box_cols = kBlockK});
  launch.b_map = encode_tiled_matrix_2d(
      {.base = args.b,
       .rows = static_cast<std::uint64_t>(args.groups) * static_cast<std::uint64_t>(args.n),
       .cols = static_cast<std::uint64_t>(args.k),
       .box_rows = kBlockN,
       .box_cols = kBlockK});
  // One block per SM: the tile count is only known on the device.
  launch.grid = dim3(static_cast<unsigned>(device.multiProcessorCount));
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

cudaError_t launch_grouped_gemm_bf16(const GroupedGemmBf16Launch& launch, cudaStream_t stream) {
  const GroupedGemmBf16Args& a = launch.args;
  grouped_gemm_bf16<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, a.c, a.row_offsets, a.groups, a.total_rows, a.n, a.k);
  return cudaGetLastError();
}

}  // namespace aisp::common
