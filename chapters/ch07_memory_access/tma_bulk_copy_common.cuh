// The problem both tma_bulk_copy variants solve: a 7×7 filter over a 16384×16384 fp32 image,
// out[r][c] = sum over dr, dc in [0, 6] of w[dr]·w[dc] · x[r - 3 + dr][c - 3 + dc], with
// w = (1, 2, 3, 4, 3, 2, 1) / 16. The input carries its boundary as ghost cells: it is stored
// padded, (16384 + 6) rows × (16384 + 8) columns, x[i][j] = in[i + 3][j + 4] (3 ghost rows above
// and below, 4 ghost columns left and right: 3 are read, the 4th keeps every row segment a
// multiple of 16 bytes), all of it random input. 1 GiB in, 1 GiB out; 49 FMAs per output:
// 98 FLOPs per 8 bytes, the compute floor (2^28 · 98 / 50.6 TFLOP/s = 0.52 ms) about equal to
// the memory floor (2.15 GB / 4275 GB/s = 0.50 ms), as in cp_async_pipeline.
// Both variants run a persistent grid of one 1024-thread block per SM. A block walks its tiles of
// 64 × 256 outputs; each tile's input is 70 row segments of 264 floats (1056 bytes, 16-byte
// aligned in global and shared memory), staged in shared memory as a 70 × 264 block (72 KiB).
// Each thread then computes 4 rows × 4 columns of outputs from it (filter_tile below, shared by
// both variants, so both round alike and agree to the bit). They differ only in how the stage
// is filled.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch07 {

namespace filter2d {

constexpr int kN = 16384;  // output rows and columns
constexpr int kRadius = 3;
constexpr int kTaps = 2 * kRadius + 1;       // per direction
constexpr int kPadCols = 4;                  // ghost columns per side (kRadius used)
constexpr int kInRows = kN + 2 * kRadius;    // 16390
constexpr int kInPitch = kN + 2 * kPadCols;  // 16392 floats per input row
constexpr int kTileRows = 64;                // outputs per tile
constexpr int kTileCols = 256;
constexpr int kStageRows = kTileRows + 2 * kRadius;   // 70 input row segments per tile
constexpr int kStageCols = kTileCols + 2 * kPadCols;  // 264 floats per segment
constexpr int kSegmentBytes = kStageCols * static_cast<int>(sizeof(float));  // 1056
constexpr int kSegmentChunks = kStageCols / 4;                               // 66 float4
constexpr int kStageChunks = kStageRows * kSegmentChunks;                    // 4620
constexpr std::size_t kStageBytes = static_cast<std::size_t>(kStageRows) * kSegmentBytes;
constexpr int kTilesX = kN / kTileCols;             // 64
constexpr int kTiles = (kN / kTileRows) * kTilesX;  // 16384
constexpr int kThreads = 1024;
constexpr int kGroupCols = kTileCols / 4;  // 64 column groups of 4 outputs
constexpr int kRowsPerThread = kTileRows / (kThreads / kGroupCols);         // 4
constexpr int kChunksPerThread = (kStageChunks + kThreads - 1) / kThreads;  // 5, the last partial
static_assert(kN % kTileRows == 0 && kN % kTileCols == 0, "whole tiles only");
static_assert(kRowsPerThread * (kThreads / kGroupCols) == kTileRows, "rows split evenly");
static_assert(kSegmentBytes % 16 == 0 && (kInPitch * sizeof(float)) % 16 == 0,
              "bulk copies and float4 loads need 16-byte sizes and row starts");
static_assert(kPadCols >= kRadius && kPadCols % 4 == 0, "ghost columns: cover the radius, keep "
                                                        "segments float4-aligned");

// Separable triangle weights: w[dr]·w[dc] = (4 - |dr - 3|)(4 - |dc - 3|) / 256, exact in fp32.
__host__ __device__ constexpr float tap(int dr, int dc) {
  return static_cast<float>((4 - (dr < 3 ? 3 - dr : dr - 3)) * (4 - (dc < 3 ? 3 - dc : dc - 3))) /
         256.0f;
}

// Where tile t starts: its first output row and column, which are also the first input row and
// padded column of its stage (output (r, c) reads in[r + dr][c + 1 + dc]).
__device__ __forceinline__ int tile_row(int tile) { return (tile / kTilesX) * kTileRows; }
__device__ __forceinline__ int tile_col(int tile) { return (tile % kTilesX) * kTileCols; }

// Row segment i of tile t's stage, in the padded input.
__device__ __forceinline__ const float* segment_source(const float* in, int tile, int i) {
  return in + static_cast<std::size_t>(tile_row(tile) + i) * kInPitch + tile_col(tile);
}

// The compute phase of one tile, the same in both variants. Thread (gx, gy) = (tid % 64,
// tid / 64) computes output rows 4gy..4gy+3 and columns 4gx..4gx+3 of the tile. It walks the 10
// stage rows those outputs need, reads 12 floats of each (three float4, 16 bytes per lane apart:
// conflict-free) and adds each row's 7 taps to every output row it belongs to. Each output is
// summed in ascending dr, then dc, one FMA per tap; the taps are compile-time constants.
__device__ __forceinline__ void filter_tile(const float* __restrict__ stage, int tile,
                                            float* __restrict__ out) {
  const int gx = static_cast<int>(threadIdx.x) % kGroupCols;
  const int gy = static_cast<int>(threadIdx.x) / kGroupCols;
  float acc[kRowsPerThread][4] = {};
#pragma unroll
  for (int b = 0; b < kRowsPerThread + 2 * kRadius; ++b) {
    const auto* row =
        reinterpret_cast<const float4*>(stage + (kRowsPerThread * gy + b) * kStageCols) + gx;
    const float4 v0 = row[0], v1 = row[1], v2 = row[2];
    const float v[12] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w, v2.x, v2.y, v2.z, v2.w};
#pragma unroll
    for (int a = 0; a < kRowsPerThread; ++a) {
      const int dr = b - a;
      if (dr < 0 || dr >= kTaps)
        continue;
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int dc = 0; dc < kTaps; ++dc)
          acc[a][e] = fmaf(tap(dr, dc), v[e + kPadCols - kRadius + dc], acc[a][e]);
    }
  }
#pragma unroll
  for (int a = 0; a < kRowsPerThread; ++a) {
    const std::size_t r = static_cast<std::size_t>(tile_row(tile) + kRowsPerThread * gy + a);
    reinterpret_cast<float4*>(out + r * kN + tile_col(tile))[gx] =
        make_float4(acc[a][0], acc[a][1], acc[a][2], acc[a][3]);
  }
}

}  // namespace filter2d

class TmaBulkCopyProblem : public aisp::Benchmark {
 public:
  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("n", filter2d::kN).set("taps", "7x7").set("boundary", "ghost-cells");
    s.set("input_rows", filter2d::kInRows).set("input_pitch", filter2d::kInPitch);
    s.set("tile", "64x256").set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    in_ = ctx.alloc("in", DType::f32,
                    static_cast<std::size_t>(filter2d::kInRows) * filter2d::kInPitch, Role::input);
    out_ = ctx.alloc("out", DType::f32, static_cast<std::size_t>(filter2d::kN) * filter2d::kN,
                     Role::output);
    ctx.fill_uniform(in_);
    sm_count_ = ctx.device_properties().multiProcessorCount;
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out_.data()) % 16 != 0)
      throw std::invalid_argument("tma_bulk_copy: in and out must be 16-byte aligned");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    // The padded input read once, the output written once (halos re-read by neighbouring tiles
    // are not counted: +13% if none of them hit in L2).
    w.bytes = sizeof(float) * (static_cast<double>(filter2d::kInRows) * filter2d::kInPitch +
                               static_cast<double>(filter2d::kN) * filter2d::kN);
    w.flops =
        2.0 * filter2d::kTaps * filter2d::kTaps * static_cast<double>(filter2d::kN) * filter2d::kN;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  // Persistent grid: one block per SM, each walking tiles blockIdx.x, + gridDim.x, ...
  unsigned grid() const { return static_cast<unsigned>(sm_count_); }

 private:
  aisp::Tensor in_, out_;
  int sm_count_ = 0;
};

}  // namespace aisp::ch07
