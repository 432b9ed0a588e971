// Optimized: the tiles move by TMA, both ways. Two tensor maps (cuTensorMapEncodeTiled through
// chapters/common/tensor_map.hpp, encoded in setup) describe `in` and `out` as 2D fp32 matrices
// copied in 32×32 boxes (one 128-byte row per box row, 128-byte swizzle). What changed from the
// per-thread baseline is who moves the bytes between HBM and shared memory:
//   - one lane per warp asks the copy engine for a whole 4 KiB tile (cp.async.bulk.tensor) and
//     the bytes land in shared memory without passing through any register; an mbarrier counts
//     them in (the warp waits on its phase parity);
//   - because the copy is asynchronous, each warp keeps a ring of 4 tiles in flight and works
//     on the oldest: 8 warps × 4 × 4 KiB = 128 KiB of loads in flight per SM all the time, where
//     the baseline block has 16 KiB in flight until its barrier and then none;
//   - the lanes only transpose in shared memory (row `lane` of the loaded tile into column `lane`
//     of an output tile, both in the 128-byte swizzled layout: conflict-free both ways, see
//     below), and one lane hands the output tile to the copy engine (TMA store, tracked by bulk
//     groups; two output tiles per warp, so one is written while the other drains);
//   - one persistent block per SM (8 warps, 192 KiB of tiles); warp w of the grid takes tiles
//     w, w + warps, ... in row-major tile order.
// Shared-memory banks, with the 128-byte swizzle (16-byte chunk c of row r stored at chunk
// c ^ (r % 8)): reading, lane l loads row l's chunk c as one float4 at chunk c ^ (l % 8), so each
// quarter-warp (8 lanes, 8 rows) touches 8 different chunks: all 32 banks. Writing, element
// (l, col) goes to output-tile row col, chunk (l / 4) ^ (col % 8), word l % 4: for one col the 32
// lanes cover 8 chunks × 4 words, all 32 banks.
// Bytes: 2·n²·4 = 2 GiB; 0 FLOPs. Ceiling: HBM bandwidth.
// Needs TMA (compute capability 9.0+: Feature::tma); the instructions exist on sm_90a and sm_100a.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/mbarrier.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "tile_transpose_common.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kTile = 32;  // floats per tile side: one 128-byte swizzle row per tile row
constexpr int kWarps = 8;
constexpr int kLoadSlots = 4;   // tiles in flight towards each warp
constexpr int kStoreSlots = 2;  // output tiles per warp: one filled while the other drains
constexpr unsigned kTileBytes = kTile * kTile * sizeof(float);  // 4 KiB
constexpr unsigned kWarpBytes = (kLoadSlots + kStoreSlots) * kTileBytes;
constexpr unsigned kSharedBytes =
    kWarps * kWarpBytes + kWarps * kLoadSlots * 8 + common::kSharedAlignmentSlack;

// Waits until every bulk store this thread committed has completed (not only read its source).
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void __launch_bounds__(kWarps * 32, 1)
    transpose_tma(const __grid_constant__ CUtensorMap in_map,
                  const __grid_constant__ CUtensorMap out_map, int n) {
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  std::uint8_t* mine = base + warp * kWarpBytes;
  auto* full = reinterpret_cast<std::uint64_t*>(base + kWarps * kWarpBytes) + warp * kLoadSlots;
  const auto load_slot = [&](int s) { return reinterpret_cast<float*>(mine + s * kTileBytes); };
  const auto store_slot = [&](int b) {
    return reinterpret_cast<float*>(mine + (kLoadSlots + b) * kTileBytes);
  };

  const int tiles_per_side = n / kTile;
  const int tiles = tiles_per_side * tiles_per_side;
  const int first = static_cast<int>(blockIdx.x) * kWarps + warp;
  const int stride = static_cast<int>(gridDim.x) * kWarps;
  // Tile t covers in's rows 32·(t / tiles_per_side).. and columns 32·(t % tiles_per_side)..
  const auto load = [&](int s, int tile) {
    common::mbarrier_arrive_expect_tx(&full[s], kTileBytes);
    common::tma_load_2d(load_slot(s), in_map, &full[s], (tile % tiles_per_side) * kTile,
                        (tile / tiles_per_side) * kTile);
  };

  // Each warp runs its own ring: its lane 0 initializes the barriers and issues every copy.
  if (lane == 0) {
    if (warp == 0)
      common::tma_prefetch_tensor_map(in_map);
    for (int s = 0; s < kLoadSlots; ++s)
      common::mbarrier_init(&full[s], 1);
    common::mbarrier_init_fence();
    for (int s = 0; s < kLoadSlots && first + s * stride < tiles; ++s)
      load(s, first + s * stride);
  }
  __syncwarp();

  int i = 0;
  for (int tile = first; tile < tiles; tile += stride, ++i) {
    const int s = i % kLoadSlots, b = i % kStoreSlots;
    common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((i / kLoadSlots) % 2));
    if (lane == 0)  // the store that last used output tile b has finished reading it
      common::bulk_wait_group_read<kStoreSlots - 1>();
    __syncwarp();

    const float* in_tile = load_slot(s);
    float* out_tile = store_slot(b);
#pragma unroll
    for (int c = 0; c < kTile / 4; ++c) {
      const float4 v =
          *reinterpret_cast<const float4*>(in_tile + lane * kTile + 4 * (c ^ (lane % 8)));
      const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int col = 4 * c + q;  // this input column is output-tile row `col`
        out_tile[col * kTile + 4 * ((lane / 4) ^ (col % 8)) + lane % 4] = e[q];
      }
    }
    common::fence_proxy_async_shared();  // the copy engine reads what these stores wrote
    __syncwarp();                        // every lane is done with in_tile and out_tile

    if (lane == 0) {
      const int tile_row = tile / tiles_per_side, tile_col = tile % tiles_per_side;
      common::tma_store_2d(out_map, out_tile, tile_row * kTile, tile_col * kTile);
      common::bulk_commit_group();
      const int next = tile + kLoadSlots * stride;
      if (next < tiles)
        load(s, next);  // the slot just read becomes the ring's newest
    }
  }
  if (lane == 0)
    bulk_wait_all();  // shared memory must outlive the stores that read it
  __syncwarp();
}

}  // namespace

struct TileTransposeTma : TileTransposeProblem {
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::tma};
    return r;
  }

  void setup(aisp::Context& ctx) override {
    TileTransposeProblem::setup(ctx);
    const cudaDeviceProp& device = ctx.device_properties();
    if (device.sharedMemPerBlockOptin < kSharedBytes)
      throw std::invalid_argument("tile_transpose tma: needs " + std::to_string(kSharedBytes) +
                                  " bytes of shared memory per block");
    AISP_CUDA_CHECK(cudaFuncSetAttribute(transpose_tma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         kSharedBytes));
    const auto matrix = [&](const float* base) {
      return common::encode_tiled_matrix_2d({.base = base,
                                             .dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                                             .element_bytes = sizeof(float),
                                             .rows = static_cast<std::uint64_t>(n()),
                                             .cols = static_cast<std::uint64_t>(n()),
                                             .box_rows = kTile,
                                             .box_cols = kTile});
    };
    in_map_ = matrix(in());
    out_map_ = matrix(out());
    const int tiles = (n() / kTile) * (n() / kTile);
    grid_ =
        static_cast<unsigned>(std::min(device.multiProcessorCount, (tiles + kWarps - 1) / kWarps));
  }

  void run(aisp::Context& ctx) override {
    transpose_tma<<<grid_, kWarps * 32, kSharedBytes, ctx.stream()>>>(in_map_, out_map_, n());
    AISP_CHECK_LAUNCH();
  }

 private:
  CUtensorMap in_map_{}, out_map_{};
  unsigned grid_ = 1;
};

}  // namespace aisp::ch10

AISP_VARIANT(aisp::ch10::TileTransposeTma)
