// The grouped MoE GEMM kernel template behind moe_grouped_gemm.cuh, instantiated once per
// projection and operand type in moe_grouped_bf16_kernel.cu and moe_grouped_fp8_kernel.cu (the
// only two files that include this one).
//
// Structure (chapter 10's persistent rung, gemm_bf16_persistent_kernel.cu): 384 threads, one block
// per SM; warpgroup 0 produces (setmaxnreg down to 40 registers), warpgroups 1 and 2 consume (up
// to 232), each multiplying its 64-row half of a 128-row tile by 256 rows of weights with
// wgmma.m64n256 (k16 for bf16, k32 for e4m3: 128 bytes of k per ring slot either way, four
// instructions per slot); a 4-slot ring of (A 16 KiB, B 32 KiB) with full/empty mbarriers whose
// phases run on across tiles and experts.
//
// What is MoE-specific:
//   - The scheduler. Each block reads the experts' row offsets (written by the router on the GPU)
//     into a shared table and prefix-sums their tile counts, ceil(rows_e / 128) · column tiles.
//     All experts' tiles form one sequence — expert by expert, within an expert down the 128-row
//     blocks first, so the ~132 blocks in flight share each weight slice in L2 — and block b takes
//     tiles b, b + gridDim.x, ... (binary search for a tile's expert). A tile's rows past its
//     expert's end are computed from zeros or from the next expert's rows, and never stored.
//   - gate_up gathers A. TMA cannot copy a list of rows on Hopper, so all 128 producer threads
//     load A: thread p owns row p of the tile (token sorted_rows[row0 + p] / top_k, or zeros past
//     the expert), copies its 128 bytes of each k-step with eight 16-byte cp.async into the
//     128-byte-swizzled slot (chunk c of row p at chunk c ^ (p % 8), the layout TMA would have
//     written), and arrives on the slot's `full` barrier when they land (cp.async.mbarrier
//     .arrive.noinc). Thread 0 also loads the slot's weights with two TMA boxes, 128 gate rows and
//     the matching 128 up rows, side by side: `full` expects 128 + 1 arrivals and the weights'
//     bytes. Consumers fence the async proxy after the wait (moe_gather_copy.cuh).
//     Or (MoeTileSchedule::sorted_a_multicast, FP8) it does not gather: x was written in expert
//     order by its cast (one row per assignment), so A is loaded like down's, one TMA box of 128
//     rows per k-step, and `full` expects one arrival and the slot's bytes (AFeed::tma).
//   - gate_up's epilogue is the SwiGLU: accumulator column c < 128 (gate) and c + 128 (up) sit in
//     the same thread (registers 4j + e and 4(j + 16) + e), so h = silu(g)·u is formed in
//     registers and only h is stored (bf16, or e4m3 scaled by h_quant).
//   - down's epilogue stores bf16 rows of `out` in expert-sorted order; FP8 applies the factors.
// Rows are masked at the expert's end (row_end); columns need no mask (whole tiles: checked in
// prepare).
#pragma once

#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/cluster.cuh"
#include "../common/fp8_e4m3.cuh"
#include "../common/mbarrier.cuh"
#include "../common/moe_shape.hpp"
#include "../common/setmaxnreg.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "../common/wgmma.cuh"
#include "moe_gather_copy.cuh"
#include "moe_grouped_gemm.cuh"
#include "moe_wgmma_e4m3.cuh"

namespace aisp::ch17::grouped_detail {

enum class Projection { gate_up, down };
enum class Operands { bf16, e4m3 };
enum class TileOrder { rows_first, grouped };  // locate_tile
// How A reaches the ring slots (down's A, h, is always in expert order: tma).
//   tma               one thread loads a 128-row box per k-step (down; gate_up when x was
//                     written in expert order beforehand, MoeTileSchedule::sorted_a_multicast)
//   gather_rows       gate_up: producer thread p copies row p of the tile with cp.async
//   gather_warp_rows  gate_up: the 8 lanes of a quarter-warp copy one row's 128 bytes
enum class AFeed { tma, gather_rows, gather_warp_rows };

constexpr int kBlockM = kMoeTileRows;
constexpr int kBlockB = 256;    // weight rows per tile
constexpr int kRowBytes = 128;  // bytes of k per slot row: 64 bf16 or 128 e4m3 (one swizzle row)
constexpr int kStages = 4;
constexpr int kGroupRowBlocks = 16;   // TileOrder::grouped: row blocks (of 128) per group
constexpr int kMulticastCluster = 2;  // blocks per cluster in the multicast kernels
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
[[maybe_unused]] constexpr int kConsumerWarps = 4 * kConsumers;
constexpr unsigned kATileBytes = kBlockM * kRowBytes;  // 16 KiB
constexpr unsigned kBTileBytes = kBlockB * kRowBytes;  // 32 KiB
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes =
    kStages * kSlotBytes + 2 * kStages * 8 + common::kSharedAlignmentSlack;

template <Operands kOperands>
__host__ __device__ constexpr int element_bytes() {
  return kOperands == Operands::bf16 ? 2 : 1;
}
template <Operands kOperands>
__host__ __device__ constexpr int block_k() {
  return kRowBytes / element_bytes<kOperands>();
}
// Output columns per tile: 128 h columns from 128 gate + 128 up rows; 256 for down.
template <Projection kProjection>
__host__ __device__ constexpr int tile_columns() {
  return kProjection == Projection::gate_up ? 128 : 256;
}

struct ExpertTable {
  int row_start[common::kMoeMaxExperts + 1];   // clamped expert offsets
  int tile_start[common::kMoeMaxExperts + 1];  // first tile of each expert; [experts] = all
};

struct ExpertTile {
  int expert = 0;
  int row0 = 0;     // first expert-sorted row of the tile
  int row_end = 0;  // the expert's end: rows at or past it are not stored
  int column_tile = 0;
};

struct KernelParams {
  const std::uint8_t* a_gather;  // gate_up: x (bf16 or e4m3 bytes), tokens × hidden
  int a_row_bytes;
  const int* sorted_rows;
  int top_k;
  const int* expert_offsets;
  int experts;
  int assignments;
  int k_steps;
  int b_rows_per_expert;  // 2·inter (gate_up) or hidden (down)
  int intermediate;
  int out_columns;  // inter (gate_up) or hidden (down): the row length of `out`
  void* out;
  const float* a_dequant;
  const float* b_dequant;
  const float* out_quant;
};

__device__ __forceinline__ int expert_rows(const ExpertTable& table, int e) {
  return max(table.row_start[e + 1] - table.row_start[e], 0);
}

// Called by every thread of the block (it synchronizes the block).
// A tile of the sequence covers kCluster row blocks (one per block of a cluster) × one column tile.
template <int kCluster>
__device__ inline void build_expert_table(ExpertTable& table, const int* offsets, int experts,
                                          int assignments, int column_tiles) {
  constexpr int kRowsPerTile = kBlockM * kCluster;
  const int tid = static_cast<int>(threadIdx.x);
  for (int e = tid; e <= experts; e += static_cast<int>(blockDim.x))
    table.row_start[e] = min(max(offsets[e], 0), assignments);
  __syncthreads();
  if (tid < 32) {  // warp 0: prefix sum of the tile counts, 32 experts at a time
    int carry = 0;
    for (int first = 0; first < experts; first += 32) {
      const int e = first + tid;
      const int count =
          e < experts ? (expert_rows(table, e) + kRowsPerTile - 1) / kRowsPerTile * column_tiles
                      : 0;
      int sum = count;
#pragma unroll
      for (int offset = 1; offset < 32; offset *= 2) {
        const int other = __shfl_up_sync(0xffffffffu, sum, offset);
        if (tid >= offset)
          sum += other;
      }
      if (e < experts)
        table.tile_start[e + 1] = carry + sum;
      carry += __shfl_sync(0xffffffffu, sum, 31);
    }
    if (tid == 0)
      table.tile_start[0] = 0;
  }
  __syncthreads();
}

// The last expert whose first tile is at or before `tile` (an empty expert shares its first tile
// index with the next one, so "last" skips it), and where in that expert the tile lies:
//   rows_first  down the expert's row blocks, then the next column tile: the blocks in flight share
//               one weight slice, but each reads rows of A of its own, all of the expert's A per
//               column tile (64 MB of x in e4m3 per expert at 65536 tokens: more than L2 holds,
//               so A comes from HBM once per column tile)
//   grouped     the same within groups of kGroupRowBlocks row blocks (2048 rows): a group's A
//               (8 MB for gate_up, 22.5 MB for down in e4m3) stays in L2 while its column tiles
//               go by, and the ~132 blocks in flight cover ~132 / 16 column tiles of B
// kCluster blocks share a tile's weights; block `rank` takes row block kCluster · unit + rank.
template <TileOrder kOrder, int kCluster>
__device__ __forceinline__ ExpertTile locate_tile(const ExpertTable& table, int experts, int tile,
                                                  int column_tiles, int rank) {
  constexpr int kRowsPerTile = kBlockM * kCluster;
  int lo = 0, hi = experts - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (table.tile_start[mid] <= tile)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int local = tile - table.tile_start[lo];
  const int row_units = (expert_rows(table, lo) + kRowsPerTile - 1) / kRowsPerTile;
  int unit = 0, column_tile = 0;
  if constexpr (kOrder == TileOrder::rows_first) {
    unit = local % row_units;
    column_tile = local / row_units;
  } else {
    constexpr int kGroupUnits = kGroupRowBlocks / kCluster;
    const int group_tiles = kGroupUnits * column_tiles;
    const int group = local / group_tiles;
    const int first_unit = group * kGroupUnits;
    const int units_in_group = min(kGroupUnits, row_units - first_unit);
    const int in_group = local - group * group_tiles;
    unit = first_unit + in_group % units_in_group;
    column_tile = in_group / units_in_group;
  }
  ExpertTile t;
  t.expert = lo;
  t.row0 = table.row_start[lo] + (unit * kCluster + rank) * kBlockM;
  t.row_end = table.row_start[lo + 1];
  t.column_tile = column_tile;
  return t;
}

__device__ __forceinline__ float swiglu(float g, float u) {
  return g / (1.0f + __expf(-g)) * u;  // g ≪ 0: g / inf = -0, as silu should
}

// MoeSiluMath::tanh_approx (FP8 only): silu(g) = g·sigmoid(g) = (g/2)·(1 + tanh(g/2)), one MUFU
// instruction (tanh.approx.f32) where swiglu() issues two (ex2, and the reciprocal inside an IEEE
// division with its extra FMAs). tanh.approx's error, ~2^-11 absolute, is up to ~2.5e-4·|g| in
// silu: 5e-4 of silu for g > 0, 0.5% at g = -3, beside e4m3's rounding of h (up to 6.25%) that
// follows; it reaches silu's own size only below g ≈ -8 (sigmoid < 2.5e-4, silu < 0.003·|g|).
__device__ __forceinline__ float swiglu_tanh(float g, float u) {
  const float half = 0.5f * g;
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(half));
  return fmaf(half, t, half) * u;  // g ≪ 0: tanh = -1, silu = -0
}

// gate_up's epilogue: one consumer warpgroup's 64 rows × (128 gate | 128 up) accumulators to
// 64 × 128 values of h. kTanhSilu: swiglu_tanh (FP8 only), else swiglu.
template <Operands kOperands, bool kTanhSilu = false>
__device__ __forceinline__ void store_swiglu_tile(const float (&d)[128], const KernelParams& p,
                                                  const ExpertTile& t, int consumer) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  const int row = t.row0 + 64 * consumer + 16 * warp + lane / 4;
  const bool top_ok = row < t.row_end, bottom_ok = row + 8 < t.row_end;
  const int col0 = t.column_tile * 128 + 2 * (lane % 4);
  const std::size_t ld = static_cast<std::size_t>(p.out_columns);
  [[maybe_unused]] float a_dequant = 1.0f, h_quant = 1.0f;
  [[maybe_unused]] const float* b_dequant = nullptr;
  if constexpr (kOperands == Operands::e4m3) {
    a_dequant = *p.a_dequant;
    h_quant = *p.out_quant;
    b_dequant = p.b_dequant + static_cast<std::size_t>(t.expert) * p.b_rows_per_expert;
  }
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const int col = col0 + 8 * j;
    float sg0 = 1.0f, sg1 = 1.0f, su0 = 1.0f, su1 = 1.0f;
    if constexpr (kOperands == Operands::e4m3 && kTanhSilu) {
      // col is even and every expert's factors start at an even index: 8-byte loads.
      const float2 g2 = __ldg(reinterpret_cast<const float2*>(b_dequant + col));
      const float2 u2 = __ldg(reinterpret_cast<const float2*>(b_dequant + p.intermediate + col));
      sg0 = a_dequant * g2.x;
      sg1 = a_dequant * g2.y;
      su0 = a_dequant * u2.x;
      su1 = a_dequant * u2.y;
    } else if constexpr (kOperands == Operands::e4m3) {
      sg0 = a_dequant * __ldg(b_dequant + col);
      sg1 = a_dequant * __ldg(b_dequant + col + 1);
      su0 = a_dequant * __ldg(b_dequant + p.intermediate + col);
      su1 = a_dequant * __ldg(b_dequant + p.intermediate + col + 1);
    }
    const auto silu_times = [](float g, float u) {
      if constexpr (kTanhSilu)
        return swiglu_tanh(g, u);
      else
        return swiglu(g, u);
    };
    const float t0 = silu_times(d[4 * j] * sg0, d[4 * (j + 16)] * su0);
    const float t1 = silu_times(d[4 * j + 1] * sg1, d[4 * (j + 16) + 1] * su1);
    const float b0 = silu_times(d[4 * j + 2] * sg0, d[4 * (j + 16) + 2] * su0);
    const float b1 = silu_times(d[4 * j + 3] * sg1, d[4 * (j + 16) + 3] * su1);
    const std::size_t top = static_cast<std::size_t>(row) * ld + static_cast<std::size_t>(col);
    const std::size_t bottom = top + 8 * ld;
    if constexpr (kOperands == Operands::bf16) {
      auto* h = static_cast<__nv_bfloat16*>(p.out);
      if (top_ok)
        *reinterpret_cast<__nv_bfloat162*>(h + top) = __floats2bfloat162_rn(t0, t1);
      if (bottom_ok)
        *reinterpret_cast<__nv_bfloat162*>(h + bottom) = __floats2bfloat162_rn(b0, b1);
    } else {
      auto* h = static_cast<std::uint8_t*>(p.out);
      if (top_ok)
        *reinterpret_cast<std::uint16_t*>(h + top) =
            common::pack_e4m3x2(t0 * h_quant, t1 * h_quant);
      if (bottom_ok)
        *reinterpret_cast<std::uint16_t*>(h + bottom) =
            common::pack_e4m3x2(b0 * h_quant, b1 * h_quant);
    }
  }
}

// down's epilogue: 64 rows × 256 columns of out (bf16).
template <Operands kOperands>
__device__ __forceinline__ void store_down_tile(const float (&d)[128], const KernelParams& p,
                                                const ExpertTile& t, int consumer) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  const int row = t.row0 + 64 * consumer + 16 * warp + lane / 4;
  const bool top_ok = row < t.row_end, bottom_ok = row + 8 < t.row_end;
  const int col0 = t.column_tile * 256 + 2 * (lane % 4);
  const std::size_t ld = static_cast<std::size_t>(p.out_columns);
  auto* out = static_cast<__nv_bfloat16*>(p.out);
  [[maybe_unused]] float a_dequant = 1.0f;
  [[maybe_unused]] const float* b_dequant = nullptr;
  if constexpr (kOperands == Operands::e4m3) {
    a_dequant = *p.a_dequant;
    b_dequant = p.b_dequant + static_cast<std::size_t>(t.expert) * p.b_rows_per_expert;
  }
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    const int col = col0 + 8 * j;
    float s0 = 1.0f, s1 = 1.0f;
    if constexpr (kOperands == Operands::e4m3) {
      s0 = a_dequant * __ldg(b_dequant + col);
      s1 = a_dequant * __ldg(b_dequant + col + 1);
    }
    const std::size_t top = static_cast<std::size_t>(row) * ld + static_cast<std::size_t>(col);
    if (top_ok)
      *reinterpret_cast<__nv_bfloat162*>(out + top) =
          __floats2bfloat162_rn(d[4 * j] * s0, d[4 * j + 1] * s1);
    if (bottom_ok)
      *reinterpret_cast<__nv_bfloat162*>(out + top + 8 * ld) =
          __floats2bfloat162_rn(d[4 * j + 2] * s0, d[4 * j + 3] * s1);
  }
}

template <Operands kOperands>
__device__ __forceinline__ void wgmma_k_slice(float (&d)[128], std::uint64_t desc_a,
                                              std::uint64_t desc_b, bool accumulate) {
  if constexpr (kOperands == Operands::bf16)
    common::wgmma_m64n256k16_bf16(d, desc_a, desc_b, accumulate);
  else
    wgmma_m64n256k32_e4m3(d, desc_a, desc_b, accumulate);
}

// The kernel's body. kCluster = 2: the two blocks of a cluster (neighbouring SMs) take the two row
// blocks of one tile of the sequence and share its weights: each block loads half of the B slot
// with a TMA multicast that lands in both blocks' slot and counts down both blocks' `full`
// barrier, so every weight byte leaves L2 once per cluster instead of once per block (the FP8
// kernel moves 48 KiB per block per k-step, twice BF16's bytes per second). A slot is refilled
// only when the consumers of both blocks released it (`empty` counts both blocks' consumer warps).
//
// kFeed (AFeed): how A reaches the slots. gather_rows: thread p copies row p of the tile, so one
// warp instruction touches 32 rows, 16 bytes of each: 32 sector requests to L2, each sector half
// used (its other half comes with the next instruction). gather_warp_rows: the 8 lanes of a
// quarter-warp copy one row's 128 bytes, so one instruction reads 4 whole rows (16 full sectors);
// each thread copies one chunk of 8 rows, 4 rows apart. tma: A is already in expert order (h for
// down; for gate_up x written so by moe_layer_kernels.cuh's launch_quantize_scatter_e4m3), one
// 128-row box per k-step, as a dense GEMM loads it.
template <Projection kProjection, Operands kOperands, TileOrder kOrder, int kCluster, AFeed kFeed,
          bool kTanhSilu = false>
__device__ __forceinline__ void grouped_gemm_body(const CUtensorMap& a_map,
                                                  const CUtensorMap& b_map, const KernelParams& p) {
  constexpr bool kGateUp = kProjection == Projection::gate_up;  // B and the epilogue
  constexpr bool kGather = kFeed != AFeed::tma;                 // A by cp.async from x's rows
  static_assert(kGateUp || !kGather, "only gate_up gathers A");
  constexpr unsigned kBShareBytes = kBTileBytes / kCluster;  // the B bytes one block loads
  extern __shared__ std::uint8_t shared_window[];
  __shared__ ExpertTable table;
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kStages * kSlotBytes);
  std::uint64_t* empty = full + kStages;
  const auto a_slot = [&](int s) { return base + s * kSlotBytes; };
  const auto b_slot = [&](int s) { return base + s * kSlotBytes + kATileBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  int rank = 0, first_tile = static_cast<int>(blockIdx.x),
      tile_stride = static_cast<int>(gridDim.x);
  if constexpr (kCluster > 1) {
    rank = static_cast<int>(common::cluster_cta_rank());
    first_tile = static_cast<int>(common::cluster_index_x());
    tile_stride = static_cast<int>(common::cluster_count_x());
  }

  if (tid == 0) {
    if constexpr (!kGather)
      common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    for (int s = 0; s < kStages; ++s) {
      // gate_up: 128 cp.async arrivals + thread 0's expect_tx arrival; down: the expect_tx only.
      common::mbarrier_init(&full[s], kGather ? 129 : 1);
      common::mbarrier_init(&empty[s], kConsumerWarps * kCluster);
    }
    common::mbarrier_init_fence();
  }
  const int column_tiles = p.out_columns / tile_columns<kProjection>();
  build_expert_table<kCluster>(table, p.expert_offsets, p.experts, p.assignments, column_tiles);
  if constexpr (kCluster > 1)
    common::cluster_sync();  // the peer's barriers exist before any multicast or remote arrival
  const int tiles = table.tile_start[p.experts];
  const auto locate = [&](int tile) {
    return locate_tile<kOrder, kCluster>(table, p.experts, tile, column_tiles, rank);
  };
  // B's rows for this block's share of a slot: one TMA box (multicast to the cluster), or all of
  // them (two boxes for gate_up: 128 gate rows, then the matching 128 up rows).
  const auto load_b = [&](int s, int kstep, int gate_or_b_row) {
    const int k = kstep * block_k<kOperands>();
    if constexpr (kCluster > 1) {
      const int row = kGateUp ? gate_or_b_row + rank * p.intermediate : gate_or_b_row + rank * 128;
      common::tma_load_2d_multicast(b_slot(s) + rank * kBShareBytes, b_map, &full[s], k, row,
                                    static_cast<std::uint16_t>((1u << kCluster) - 1));
    } else if constexpr (kGateUp) {
      common::tma_load_2d(b_slot(s), b_map, &full[s], k, gate_or_b_row);
      common::tma_load_2d(b_slot(s) + kBTileBytes / 2, b_map, &full[s], k,
                          gate_or_b_row + p.intermediate);
    } else {
      common::tma_load_2d(b_slot(s), b_map, &full[s], k, gate_or_b_row);
    }
  };

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if constexpr (kFeed == AFeed::gather_warp_rows) {
      // The tile's tokens go through a table in shared memory (two buffers: tile n + 1's is
      // written while slower producer threads may still read tile n's): each thread looks up
      // one row per tile from global memory, then its 8 rows per k-step from shared memory.
      // Looking them up in global memory at every k-step put an L1-missing load (the L1 is what
      // the 196 KiB ring leaves) in front of every copy: gate_up 42.4 ms instead of 29.2 (ncu,
      // visit 1); holding 8 tokens in the producer's 40 registers spilled, and so does this loop
      // unrolled 8 times (16-32 bytes; 4 times: none).
      __shared__ int gather_tokens[2][kBlockM];
      const int chunk = tid % 8;  // this thread's 16 bytes of a 128-byte row
      const int first_row = (tid / 32) * 32 + (tid % 32) / 8;  // rows first_row + 4 i, i < 8
      int step = 0, buffer = 0;
      for (int tile = first_tile; tile < tiles; tile += tile_stride, buffer ^= 1) {
        const ExpertTile t = locate(tile);
        {
          const int row = t.row0 + tid;  // -1: a row past the expert (zeros)
          gather_tokens[buffer][tid] = row < t.row_end ? p.sorted_rows[row] / p.top_k : -1;
        }
        producer_warpgroup_sync();
        const int gate_row = t.expert * p.b_rows_per_expert + t.column_tile * 128;
        for (int kstep = 0; kstep < p.k_steps; ++kstep, ++step) {
          const int s = step % kStages;
          const auto round = static_cast<std::uint32_t>(step / kStages);
          common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);
          if (tid == 0) {
            // The whole B slot lands here (this block's share and, multicast, the peer's).
            common::mbarrier_arrive_expect_tx(&full[s], kBTileBytes);
            load_b(s, kstep, gate_row);
          }
          const std::uint8_t* column =
              p.a_gather + static_cast<std::size_t>(kstep) * kRowBytes + chunk * 16;
#pragma unroll 4
          for (int i = 0; i < 8; ++i) {
            const int row = first_row + 4 * i;
            const int token = gather_tokens[buffer][row];
            cp_async_16_zfill(a_slot(s) + row * kRowBytes + ((chunk ^ (row % 8)) * 16),
                              token >= 0 ? column + static_cast<std::size_t>(token) * p.a_row_bytes
                                         : p.a_gather,
                              token >= 0 ? 16u : 0u);
          }
          cp_async_mbarrier_arrive_noinc(&full[s]);
        }
      }
    } else if constexpr (kFeed == AFeed::gather_rows) {
      const int row_in_tile = tid;  // 0..127: this thread copies row `tid` of every A tile
      int step = 0;
      for (int tile = first_tile; tile < tiles; tile += tile_stride) {
        const ExpertTile t = locate(tile);
        const int row = t.row0 + row_in_tile;
        const std::uint8_t* source = p.a_gather;
        std::uint32_t source_bytes = 0;  // zeros for rows past the expert
        if (row < t.row_end) {
          const int token = p.sorted_rows[row] / p.top_k;
          source = p.a_gather + static_cast<std::size_t>(token) * p.a_row_bytes;
          source_bytes = 16;
        }
        const int gate_row = t.expert * p.b_rows_per_expert + t.column_tile * 128;
        for (int kstep = 0; kstep < p.k_steps; ++kstep, ++step) {
          const int s = step % kStages;
          const auto round = static_cast<std::uint32_t>(step / kStages);
          common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);
          if (row_in_tile == 0) {
            // The whole B slot lands here (this block's share and, multicast, the peer's).
            common::mbarrier_arrive_expect_tx(&full[s], kBTileBytes);
            load_b(s, kstep, gate_row);
          }
          std::uint8_t* destination = a_slot(s) + row_in_tile * kRowBytes;
          const std::uint8_t* chunk_source = source + static_cast<std::size_t>(kstep) * kRowBytes;
#pragma unroll
          for (int c = 0; c < kRowBytes / 16; ++c)
            cp_async_16_zfill(destination + ((c ^ (row_in_tile % 8)) * 16), chunk_source + c * 16,
                              source_bytes);
          cp_async_mbarrier_arrive_noinc(&full[s]);
        }
      }
    } else if (tid == 0) {
      int step = 0;
      for (int tile = first_tile; tile < tiles; tile += tile_stride) {
        const ExpertTile t = locate(tile);
        // gate_up: the tile's 128 gate rows (load_b adds the matching up rows); down: 256 rows.
        const int b_row =
            t.expert * p.b_rows_per_expert + t.column_tile * (kGateUp ? kBlockB / 2 : kBlockB);
        for (int kstep = 0; kstep < p.k_steps; ++kstep, ++step) {
          const int s = step % kStages;
          const auto round = static_cast<std::uint32_t>(step / kStages);
          common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);
          // Rows past the matrix are zero-filled and still count towards the slot's bytes.
          common::mbarrier_arrive_expect_tx(&full[s], kSlotBytes);
          common::tma_load_2d(a_slot(s), a_map, &full[s], kstep * block_k<kOperands>(), t.row0);
          load_b(s, kstep, b_row);
        }
      }
    }
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32;
    // A slot is free once this warp's wgmma reads of it retired: tell every block that fills it.
    const auto release = [&](int s) {
      if constexpr (kCluster > 1) {
        for (int peer = 0; peer < kCluster; ++peer)
          common::mbarrier_arrive_cluster(&empty[s], static_cast<std::uint32_t>(peer));
      } else {
        common::mbarrier_arrive(&empty[s]);
      }
    };
    float d[128];
    int step = 0;
    for (int tile = first_tile; tile < tiles; tile += tile_stride) {
      const ExpertTile t = locate(tile);
      for (int kstep = 0; kstep < p.k_steps; ++kstep, ++step) {
        const int s = step % kStages;
        common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((step / kStages) % 2));
        if constexpr (kGather)
          common::fence_proxy_async_shared();  // cp.async wrote A through the generic proxy
        const std::uint64_t desc_a =
            common::wgmma_descriptor_k_major_sw128(a_slot(s)) + 512 * consumer;
        const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(b_slot(s));
        common::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
          wgmma_k_slice<kOperands>(d, desc_a + 2 * kk, desc_b + 2 * kk, kstep > 0 || kk > 0);
        common::wgmma_commit_group();
        common::wgmma_wait_group<1>();
        if (kstep > 0 && lane == 0)
          release((step - 1) % kStages);
      }
      common::wgmma_wait_group<0>();
      if (lane == 0)  // the tile's last slot, before the epilogue: the producer refills it now
        release((step - 1) % kStages);
      common::wgmma_fence_accumulators(d);
      if constexpr (kGateUp)
        store_swiglu_tile<kOperands, kTanhSilu>(d, p, t, consumer);
      else
        store_down_tile<kOperands>(d, p, t, consumer);
    }
  }
  if constexpr (kCluster > 1)
    common::cluster_sync();  // no block exits while its peer may still copy into it or arrive
}

// One block per SM, rows_first, each producer thread gathering one row (rungs 3-5).
template <Projection kProjection, Operands kOperands>
__global__ void __launch_bounds__(kThreads, 1)
    moe_grouped_gemm(const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map, const KernelParams p) {
#if AISP_WGMMA_AVAILABLE
  constexpr AFeed kFeed = kProjection == Projection::gate_up ? AFeed::gather_rows : AFeed::tma;
  grouped_gemm_body<kProjection, kOperands, TileOrder::rows_first, 1, kFeed>(a_map, b_map, p);
#else
  (void)a_map, (void)b_map, (void)p;
  __trap();  // wgmma is sm_90a only: the variants declare Feature::wgmma and are skipped elsewhere
#endif
}

// 2×1 clusters, TMA multicast of the weights, grouped tile order; A gathered by whole rows
// (gate_up of l2_groups_multicast) or loaded by TMA (down; gate_up of sorted_a_multicast).
// kTanhSilu: gate_up's epilogue with swiglu_tanh (MoeSiluMath::tanh_approx).
template <Projection kProjection, Operands kOperands, AFeed kFeed, bool kTanhSilu>
__global__ void __cluster_dims__(kMulticastCluster, 1, 1) __launch_bounds__(kThreads, 1)
    moe_grouped_gemm_multicast(const __grid_constant__ CUtensorMap a_map,
                               const __grid_constant__ CUtensorMap b_map, const KernelParams p) {
#if AISP_WGMMA_AVAILABLE
  grouped_gemm_body<kProjection, kOperands, TileOrder::grouped, kMulticastCluster, kFeed,
                    kTanhSilu>(a_map, b_map, p);
#else
  (void)a_map, (void)b_map, (void)p;
  __trap();  // wgmma is sm_90a only: the variants declare Feature::wgmma and are skipped elsewhere
#endif
}

inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// How a schedule's kernel gets A: down always by TMA (h is written in expert order); gate_up
// gathers x's rows unless the schedule has x written in expert order beforehand.
template <Projection kProjection, MoeTileSchedule kSchedule>
constexpr AFeed a_feed() {
  if constexpr (kProjection == Projection::down || kSchedule == MoeTileSchedule::sorted_a_multicast)
    return AFeed::tma;
  else if constexpr (kSchedule == MoeTileSchedule::rows_first)
    return AFeed::gather_rows;
  else
    return AFeed::gather_warp_rows;
}

// down's two multicast schedules share one kernel (moe_grouped_gemm_multicast<down, *, tma,
// false>). kTanhSilu (MoeSiluMath::tanh_approx): only gate_up's multicast kernels have the choice.
template <Projection kProjection, Operands kOperands, MoeTileSchedule kSchedule,
          bool kTanhSilu = false>
constexpr auto kernel_for() {
  static_assert(!kTanhSilu || (kProjection == Projection::gate_up &&
                               kSchedule != MoeTileSchedule::rows_first),
                "the tanh SiLU is built for gate_up's multicast kernels only");
  if constexpr (kSchedule == MoeTileSchedule::rows_first)
    return moe_grouped_gemm<kProjection, kOperands>;
  else
    return moe_grouped_gemm_multicast<kProjection, kOperands, a_feed<kProjection, kSchedule>(),
                                      kTanhSilu>;
}

template <Projection kProjection, Operands kOperands, MoeTileSchedule kSchedule,
          bool kTanhSilu = false>
MoeGroupedGemmLaunch prepare(const MoeGroupedGemmArgs& args, const cudaDeviceProp& device,
                             const char* name) {
  constexpr bool kGateUp = kProjection == Projection::gate_up;
  constexpr bool kGather = a_feed<kProjection, kSchedule>() != AFeed::tma;
  constexpr bool kFp8 = kOperands == Operands::e4m3;
  constexpr bool kMulticast = kSchedule != MoeTileSchedule::rows_first;
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string(name) + ": " + what);
  };
  if (args.schedule != kSchedule)
    fail("internal: prepared with a schedule other than args.schedule");
  if (kGateUp && (args.silu == MoeSiluMath::tanh_approx) != kTanhSilu)
    fail("internal: prepared with a SiLU other than args.silu");
  if (args.a == nullptr || args.b == nullptr || args.out == nullptr ||
      args.expert_offsets == nullptr)
    fail("null A, B, out or expert_offsets");
  if (!aligned16(args.a) || !aligned16(args.b) || !aligned16(args.out))
    fail("A, B and out must be 16-byte aligned (TMA, cp.async and vector stores)");
  if (args.experts < 1 || args.experts > common::kMoeMaxExperts)
    fail("experts = " + std::to_string(args.experts) + ": must be 1.." +
         std::to_string(common::kMoeMaxExperts) + " (the scheduler's table is in shared memory)");
  if (args.assignments < 1 || args.a_rows < 1)
    fail("no rows: assignments and A's rows must be positive");
  if (args.hidden % 256 != 0 || args.intermediate % 128 != 0 || args.hidden <= 0 ||
      args.intermediate <= 0)
    fail("hidden = " + std::to_string(args.hidden) +
         ", intermediate = " + std::to_string(args.intermediate) +
         ": hidden must be a multiple of 256 and intermediate of 128 (whole tiles; this kernel "
         "masks rows only)");
  if (kGather && (args.sorted_rows == nullptr || args.top_k < 1))
    fail("gate_up gathers its rows: give sorted_rows and top_k");
  if (!kGather && args.a_rows < args.assignments)
    fail("A by TMA needs one row per expert-sorted assignment (a_rows = " +
         std::to_string(args.a_rows) + " < assignments = " + std::to_string(args.assignments) +
         "): for gate_up give x written in expert order (launch_quantize_scatter_e4m3)");
  if (kFp8 && (args.a_dequant == nullptr || args.b_dequant == nullptr ||
               (kGateUp && args.out_quant == nullptr)))
    fail("FP8 needs the dequantization factors of A and B (and gate_up the scale of h)");
  const int b_rows_per_expert = kGateUp ? 2 * args.intermediate : args.hidden;
  if (static_cast<long long>(args.experts) * b_rows_per_expert > (1ll << 31) - 1)
    fail("experts · weight rows must fit TMA's 32-bit coordinates");
  if (device.sharedMemPerBlockOptin < static_cast<int>(kSharedBytes + sizeof(ExpertTable)))
    fail("needs " + std::to_string(kSharedBytes + sizeof(ExpertTable)) +
         " bytes of shared memory per block");
  const auto kernel = kernel_for<kProjection, kOperands, kSchedule, kTanhSilu>();
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(name) +
                             ": cudaFuncSetAttribute: " + cudaGetErrorString(status));

  const int k = kGateUp ? args.hidden : args.intermediate;
  const CUtensorMapDataType type =
      kFp8 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const std::size_t bytes = static_cast<std::size_t>(element_bytes<kOperands>());
  MoeGroupedGemmLaunch launch;
  launch.args = args;
  if constexpr (!kGather)
    launch.a_map = common::encode_tiled_matrix_2d(
        {.base = args.a,
         .dtype = type,
         .element_bytes = bytes,
         .rows = static_cast<std::uint64_t>(args.a_rows),
         .cols = static_cast<std::uint64_t>(k),
         .box_rows = kBlockM,
         .box_cols = static_cast<std::uint32_t>(block_k<kOperands>())});
  // Boxes of 128 weight rows, except the unclustered down kernel's one box of 256: gate_up loads
  // its 128 gate and 128 up rows as two boxes, and a multicast block loads its half of the slot.
  const bool whole_slot_box = !kGateUp && !kMulticast;
  launch.b_map = common::encode_tiled_matrix_2d(
      {.base = args.b,
       .dtype = type,
       .element_bytes = bytes,
       .rows =
           static_cast<std::uint64_t>(args.experts) * static_cast<std::uint64_t>(b_rows_per_expert),
       .cols = static_cast<std::uint64_t>(k),
       .box_rows = static_cast<std::uint32_t>(whole_slot_box ? kBlockB : kBlockB / 2),
       .box_cols = static_cast<std::uint32_t>(block_k<kOperands>())});
  launch.grid = dim3(static_cast<unsigned>(device.multiProcessorCount));
  if constexpr (kMulticast) {
    // As many clusters as can be resident at once (a GPC need not split evenly into pairs of SMs).
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(device.multiProcessorCount));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kSharedBytes;
    cudaLaunchAttribute cluster_dims{};
    cluster_dims.id = cudaLaunchAttributeClusterDimension;
    cluster_dims.val.clusterDim.x = kMulticastCluster;
    cluster_dims.val.clusterDim.y = 1;
    cluster_dims.val.clusterDim.z = 1;
    config.attrs = &cluster_dims;
    config.numAttrs = 1;
    int resident_clusters = 0;
    status = cudaOccupancyMaxActiveClusters(&resident_clusters, kernel, &config);
    if (status != cudaSuccess)
      throw std::runtime_error(std::string(name) +
                               ": cudaOccupancyMaxActiveClusters: " + cudaGetErrorString(status));
    if (resident_clusters < 1)
      throw std::runtime_error(std::string(name) +
                               ": no 2-block cluster of this kernel fits on the GPU "
                               "(cudaOccupancyMaxActiveClusters returned 0)");
    launch.grid = dim3(static_cast<unsigned>(kMulticastCluster * resident_clusters));
  }
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

template <Projection kProjection, Operands kOperands, MoeTileSchedule kSchedule,
          bool kTanhSilu = false>
cudaError_t launch(const MoeGroupedGemmLaunch& launch, cudaStream_t stream) {
  constexpr bool kGateUp = kProjection == Projection::gate_up;
  const MoeGroupedGemmArgs& a = launch.args;
  KernelParams p{};
  p.a_gather = static_cast<const std::uint8_t*>(a.a);
  p.a_row_bytes = a.hidden * element_bytes<kOperands>();
  p.sorted_rows = a.sorted_rows;
  p.top_k = a.top_k;
  p.expert_offsets = a.expert_offsets;
  p.experts = a.experts;
  p.assignments = a.assignments;
  p.k_steps = (kGateUp ? a.hidden : a.intermediate) / block_k<kOperands>();
  p.b_rows_per_expert = kGateUp ? 2 * a.intermediate : a.hidden;
  p.intermediate = a.intermediate;
  p.out_columns = kGateUp ? a.intermediate : a.hidden;
  p.out = a.out;
  p.a_dequant = a.a_dequant;
  p.b_dequant = a.b_dequant;
  p.out_quant = a.out_quant;
  kernel_for<kProjection, kOperands, kSchedule,
             kTanhSilu>()<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, p);
  return cudaGetLastError();
}

}  // namespace aisp::ch17::grouped_detail
