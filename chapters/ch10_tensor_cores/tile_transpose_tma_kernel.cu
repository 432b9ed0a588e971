// The TMA transpose (pair tile_transpose): whole square tiles move between HBM and shared memory
// by the copy engine, one cp.async.bulk.tensor instruction per tile each way, and the threads
// only transpose the tile in shared memory, in place.
//
// What it fixes. The first TMA version (commit 4976ecd) copied 32×32 fp32 boxes, the widest box
// a 128-byte swizzle allows, through per-warp rings: 128 KiB of loads in flight per SM, a
// conflict-free swizzled transpose, and it ran at 82% of the copy ceiling against the per-thread
// baseline's 91% (613 against 553 µs, H200, development run 20261123-234213-b5c8). Bytes in
// flight were not what it lacked (the baseline has the same 128 KiB per SM: 8 blocks of 16 KiB),
// nor shared-memory bandwidth (no bank conflicts; 40 shared-memory instructions per warp per
// 4 KiB tile). What it shared with the one other transpose in this suite that stops at the same
// level, chapter 7's 32×32 padded per-thread kernel (83–84%), is the tile: every row of in and of
// out is touched 128 bytes at a time, where the 64×64 baseline touches 256 contiguous bytes of a
// row per tile. That is the working hypothesis this kernel tests (not yet measured): it keeps TMA
// and changes the geometry,
//   - tiles of 64×64 (the baseline's: 256-byte rows both ways) or 128×128 (512-byte rows), each
//     ONE unswizzled box (a swizzled box row is at most 128 bytes wide; without swizzle the box
//     is dense, up to 256 elements a side): 16 or 64 KiB per copy instruction;
//   - the tile is transposed in place (the output tile is the input tile's slot), so a slot holds
//     its tile once, not twice, and the ring keeps 144–160 KiB (64×64) or 64–128 KiB (128×128,
//     1–2 tiles) of loads in flight per SM, against the baseline's 128 KiB;
//   - one producer warp (one thread) keeps the ring full; consumer warps transpose; one consumer
//     thread issues the tile's TMA store and releases the slot once the store has read it.
//
// Shared-memory banks, dense rows of `kTile` floats (a multiple of 32: element (r, c) in bank
// c % 32). A warp handles 32×32 sub-tiles. Reading, lane l loads row l of a sub-tile as 8 float4
// in the rotated order k = (j + l) % 8: the 8 lanes of a quarter-warp hit 8 different 16-byte
// chunks, all 32 banks, so each 512-byte LDS.128 takes the minimum 4 wavefronts. Writing, lane l
// puts the 4 values of chunk k into output rows 4k..4k+3 at column l: bank l, whatever the row,
// so every 32-lane STS.32 is one wavefront. In place: a diagonal sub-tile is read whole into
// registers (32 floats a lane), then the warp syncs and writes it back transposed; an
// off-diagonal pair (R, C), (C, R) is read whole (64 floats a lane), then each goes to the
// other's place. Each consumer warp does two of these units per tile: kTile 64 has 2 diagonals
// and 1 pair (2 consumer warps), kTile 128 has 4 diagonals and 6 pairs (8 consumer warps).
//
// The ring (kSlots slots of one tile; 12 at kTile 64, 3 at 128; ~192 KiB), per tile i in slot
// s = i % kSlots: the producer waits empty[s] for the previous use's release, expects the tile's
// bytes on full[s] and issues the load; every consumer waits full[s] (phase parity), transposes
// its units, fences its shared-memory writes for the copy engine (fence.proxy.async) and meets
// the others at named barrier 1; consumer thread 0 issues the store and commits it as a bulk
// group, then waits until the previous tile's store has finished reading its slot
// (cp.async.bulk.wait_group.read 1) and releases that slot (empty, 1 arrival). The release is a
// tile late so the storing warp never waits on the store it has just issued. Every consumer walks
// every tile and is held at the named barrier, so none is ever more than one phase ahead of a
// slot's barrier (the condition for a parity wait to be right).
// One persistent block per SM takes tiles blockIdx.x, + gridDim.x, ... in row-major tile order
// (as the baseline's grid does).
// Bytes: 2·n²·4 (every element read once, written once); 0 FLOPs. Ceiling: HBM bandwidth.
// TMA exists on sm_90a and sm_100a (the variants declare Feature::tma); nothing here is
// Hopper-only.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/mbarrier.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "tile_transpose_tma.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kSub = 32;                     // a warp's sub-tile side: one float per lane
constexpr unsigned kRingBytes = 192u << 10;  // the ring's shared memory, either tile side

template <int kTile>
struct TransposeTiles {
  static_assert(kTile % kSub == 0 && kTile <= 256, "a TMA box side is at most 256 elements");
  static constexpr int kSubs = kTile / kSub;                  // sub-tiles per side
  static constexpr int kPairs = kSubs * (kSubs - 1) / 2;      // off-diagonal pairs
  static constexpr int kConsumerWarps = kPairs + kSubs / 2;   // two units each
  static constexpr int kThreads = 32 * (kConsumerWarps + 1);  // + the producer warp
  static constexpr unsigned kTileBytes = kTile * kTile * sizeof(float);
  static constexpr int kSlots = static_cast<int>(kRingBytes / kTileBytes);
  static constexpr unsigned kSharedBytes =
      kSlots * kTileBytes + 2 * kSlots * 8 + common::kSharedAlignmentSlack;
  static_assert(kSubs % 2 == 0, "diagonal sub-tiles are handed out two per warp");
  static_assert(kSlots >= 3, "the ring needs a slot loading, one transposing, one storing");
};

// Waits until every bulk store this thread committed has completed.
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Named barrier 1 over the consumer warps (id 0 is __syncthreads; the producer warp is not in it).
template <int kThreads>
__device__ __forceinline__ void consumers_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory");
}

// Row `lane` of sub-tile (r, c) of a dense kTile-wide tile, as 8 float4 in the rotated order
// k = (j + lane) % 8 (conflict-free: see the header).
template <int kTile>
__device__ __forceinline__ void read_sub_row(const float* tile, int r, int c, int lane,
                                             float4 (&v)[8]) {
  const float* row = tile + (kSub * r + lane) * kTile + kSub * c;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    v[j] = *reinterpret_cast<const float4*>(row + 4 * ((j + lane) & 7));
}

// The row read by read_sub_row, written as column `lane` of sub-tile (r, c): chunk k's four
// values go to rows 4k..4k+3 (bank `lane` for every row).
template <int kTile>
__device__ __forceinline__ void write_sub_column(float* tile, int r, int c, int lane,
                                                 const float4 (&v)[8]) {
  float* column = tile + kSub * r * kTile + kSub * c + lane;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    float* at = column + 4 * ((j + lane) & 7) * kTile;
    at[0] = v[j].x;
    at[kTile] = v[j].y;
    at[2 * kTile] = v[j].z;
    at[3 * kTile] = v[j].w;
  }
}

// This warp's two units of the in-place transpose: warps 0 .. kPairs-1 one off-diagonal pair
// each, the others two diagonal sub-tiles each.
template <int kTile>
__device__ __forceinline__ void transpose_units(float* tile, int warp, int lane) {
  using T = TransposeTiles<kTile>;
  if (warp < T::kPairs) {
    int r = 0, c = 1;  // the warp-th pair (r < c) in row-major order
    for (int skip = warp; skip > 0; --skip)
      if (++c == T::kSubs)
        ++r, c = r + 1;
    float4 upper[8], lower[8];
    read_sub_row<kTile>(tile, r, c, lane, upper);
    read_sub_row<kTile>(tile, c, r, lane, lower);
    __syncwarp();  // every lane has both sub-tiles in registers before any is overwritten
    write_sub_column<kTile>(tile, c, r, lane, upper);  // (r, c)ᵀ goes to (c, r)
    write_sub_column<kTile>(tile, r, c, lane, lower);  // and (c, r)ᵀ to (r, c)
  } else {
    const int first = 2 * (warp - T::kPairs);
#pragma unroll
    for (int d = first; d < first + 2; ++d) {
      float4 v[8];
      read_sub_row<kTile>(tile, d, d, lane, v);
      __syncwarp();
      write_sub_column<kTile>(tile, d, d, lane, v);
    }
  }
}

template <int kTile>
__global__ void __launch_bounds__(TransposeTiles<kTile>::kThreads, 1)
    transpose_tma_in_place(const __grid_constant__ CUtensorMap in_map,
                           const __grid_constant__ CUtensorMap out_map, int n) {
  using T = TransposeTiles<kTile>;
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + T::kSlots * T::kTileBytes);
  std::uint64_t* empty = full + T::kSlots;
  const auto slot = [&](int s) { return reinterpret_cast<float*>(base + s * T::kTileBytes); };

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int tiles_per_side = n / kTile;
  const int tiles = tiles_per_side * tiles_per_side;
  const int first = static_cast<int>(blockIdx.x), stride = static_cast<int>(gridDim.x);

  if (tid == 0) {
    for (int s = 0; s < T::kSlots; ++s) {
      common::mbarrier_init(&full[s], 1);   // the producer's arrival (+ the tile's bytes)
      common::mbarrier_init(&empty[s], 1);  // the storing thread's release
    }
    common::mbarrier_init_fence();
  }
  __syncthreads();

  if (warp == T::kConsumerWarps) {  // the producer warp: one thread keeps the ring full
    if (lane == 0) {
      common::tma_prefetch_tensor_map(in_map);
      common::tma_prefetch_tensor_map(out_map);
      int i = 0;
      for (int tile = first; tile < tiles; tile += stride, ++i) {
        const int s = i % T::kSlots;
        const auto round = static_cast<std::uint32_t>(i / T::kSlots);
        common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);
        common::mbarrier_arrive_expect_tx(&full[s], T::kTileBytes);
        common::tma_load_2d(slot(s), in_map, &full[s], (tile % tiles_per_side) * kTile,
                            (tile / tiles_per_side) * kTile);
      }
    }
    return;
  }

  int i = 0;
  for (int tile = first; tile < tiles; tile += stride, ++i) {
    const int s = i % T::kSlots;
    common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((i / T::kSlots) % 2));
    transpose_units<kTile>(slot(s), warp, lane);
    common::fence_proxy_async_shared();        // the copy engine reads what these stores wrote
    consumers_sync<32 * T::kConsumerWarps>();  // every unit of the tile is in place
    if (tid == 0) {
      // Input tile (row tr, column tc) is output tile (row tc, column tr).
      common::tma_store_2d(out_map, slot(s), (tile / tiles_per_side) * kTile,
                           (tile % tiles_per_side) * kTile);
      common::bulk_commit_group();
      if (i > 0) {  // the previous tile's store has read its slot: the producer may refill it
        common::bulk_wait_group_read<1>();
        common::mbarrier_arrive(&empty[(i - 1) % T::kSlots]);
      }
    }
  }
  if (tid == 0)
    bulk_wait_all();  // shared memory must outlive the stores that read it
}

template <int kTile>
TileTransposeTmaLaunch prepare(const float* in, float* out, int n, const cudaDeviceProp& device) {
  using T = TransposeTiles<kTile>;
  const std::string name =
      "tile_transpose tma (" + std::to_string(kTile) + "x" + std::to_string(kTile) + " tiles)";
  if (n <= 0 || n % kTile != 0)
    throw std::invalid_argument(name + ": n = " + std::to_string(n) +
                                " must be a positive multiple of " + std::to_string(kTile));
  if (device.sharedMemPerBlockOptin < T::kSharedBytes)
    throw std::invalid_argument(name + ": needs " + std::to_string(T::kSharedBytes) +
                                " bytes of shared memory per block, the device offers " +
                                std::to_string(device.sharedMemPerBlockOptin));
  const cudaError_t status = cudaFuncSetAttribute(
      transpose_tma_in_place<kTile>, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(name + ": cudaFuncSetAttribute: " + cudaGetErrorString(status));
  const auto matrix = [&](const float* base) {
    return common::encode_tiled_matrix_2d({.base = base,
                                           .dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                           .element_bytes = sizeof(float),
                                           .rows = static_cast<std::uint64_t>(n),
                                           .cols = static_cast<std::uint64_t>(n),
                                           .box_rows = kTile,
                                           .box_cols = kTile,
                                           .swizzle = CU_TENSOR_MAP_SWIZZLE_NONE});
  };
  TileTransposeTmaLaunch launch;
  launch.in_map = matrix(in);
  launch.out_map = matrix(out);
  launch.n = n;
  launch.tile = kTile;
  const int tiles = (n / kTile) * (n / kTile);
  launch.grid = dim3(static_cast<unsigned>(std::min(device.multiProcessorCount, tiles)));
  launch.block = dim3(T::kThreads);
  launch.shared_bytes = T::kSharedBytes;
  return launch;
}

}  // namespace

TileTransposeTmaLaunch prepare_tile_transpose_tma(int tile, const float* in, float* out, int n,
                                                  const cudaDeviceProp& device) {
  if (tile == 64)
    return prepare<64>(in, out, n, device);
  if (tile == 128)
    return prepare<128>(in, out, n, device);
  throw std::invalid_argument("tile_transpose tma: tile side " + std::to_string(tile) +
                              " is not built; use 64 or 128");
}

cudaError_t launch_tile_transpose_tma(const TileTransposeTmaLaunch& launch, cudaStream_t stream) {
  if (launch.tile == 64)
    transpose_tma_in_place<64><<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        launch.in_map, launch.out_map, launch.n);
  else if (launch.tile == 128)
    transpose_tma_in_place<128><<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
        launch.in_map, launch.out_map, launch.n);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

}  // namespace aisp::ch10
