// Optimized (step 3): padded tiled transpose with 16-byte global accesses and a 64×64 tile.
// What changed vs optimized_transpose_padded: each of the 256 threads moves four float4 (64
// bytes) instead of four floats (16 bytes), so a block has 16 KiB of loads in flight instead of
// 4 KiB and issues a quarter of the global memory instructions per byte. Why that matters: by
// Little's law, ~4.3 TB/s at several hundred ns of DRAM latency needs ~20 KiB in flight per SM,
// and a block has loads in flight only between its start and its barrier; the scalar 32×8
// version, 16 bytes per thread, does not keep enough in flight and stays near 85% of the copy
// ceiling. Everything else is kept: stage a tile, one barrier, coalesced reads and writes.
// Bank conflicts: the tile keeps one float of padding per row (65 floats), and each warp covers
// 8 float4 columns × 4 rows (128 contiguous bytes of each row it touches), not 32 × 1:
//   - filling the tile, lane (x, y) stores tile[r + y][4x + q]: bank (65(r + y) + 4x + q) mod 32
//     = (r + y + 4x + q) mod 32, with x in 0..7 and y in 0..3: 32 different banks for each q;
//   - reading a tile column, lane (x, y) loads tile[4x + q][j + y]: bank (4x + q + j + y) mod 32,
//     again 32 different banks for each q. The 4 floats are then stored as one float4.
// (Padding a row by 4 floats instead, to keep 16-byte shared stores aligned, would put 4x at
// bank 16x mod 32: an 8-way conflict on the column reads.)
// Bytes: 2·n²·4 = 2 GiB; 0 FLOPs. Ceiling: HBM bandwidth.
#include <cstdint>
#include <stdexcept>

#include "transpose_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kTile = 64;             // floats per tile side
constexpr int kThreadsX = 8;          // float4 columns per warp row: 8 × 16 B = one 128-byte line
constexpr int kThreadsY = 32;         // 8 warps, each 8 × 4 threads
constexpr int kTileVecs = kTile / 4;  // float4 per tile row
constexpr int kBlockThreads = kThreadsX * kThreadsY;

__global__ void __launch_bounds__(kBlockThreads)
    transpose_padded_vec4(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(threadIdx.y);
  const std::size_t tile_row = static_cast<std::size_t>(blockIdx.y) * kTile;  // in's first row
  const std::size_t tile_col = static_cast<std::size_t>(blockIdx.x) * kTile;  // in's first col

  // All four 16-byte loads first, so they are in flight together.
  float4 v[kTile / kThreadsY][kTileVecs / kThreadsX];
#pragma unroll
  for (int p = 0; p < kTile / kThreadsY; ++p) {
    const auto* row =
        reinterpret_cast<const float4*>(in + (tile_row + y + p * kThreadsY) * n + tile_col);
#pragma unroll
    for (int h = 0; h < kTileVecs / kThreadsX; ++h)
      v[p][h] = row[x + h * kThreadsX];
  }
#pragma unroll
  for (int p = 0; p < kTile / kThreadsY; ++p) {
#pragma unroll
    for (int h = 0; h < kTileVecs / kThreadsX; ++h) {
      float* dst = &tile[y + p * kThreadsY][4 * (x + h * kThreadsX)];
      dst[0] = v[p][h].x;
      dst[1] = v[p][h].y;
      dst[2] = v[p][h].z;
      dst[3] = v[p][h].w;
    }
  }
  __syncthreads();

  // Output row j of the tile is input column j; its float4 number c holds input rows 4c..4c+3.
#pragma unroll
  for (int p = 0; p < kTile / kThreadsY; ++p) {
    const int j = y + p * kThreadsY;
    auto* row = reinterpret_cast<float4*>(out + (tile_col + j) * n + tile_row);
#pragma unroll
    for (int h = 0; h < kTileVecs / kThreadsX; ++h) {
      const int c = x + h * kThreadsX;
      row[c] =
          make_float4(tile[4 * c][j], tile[4 * c + 1][j], tile[4 * c + 2][j], tile[4 * c + 3][j]);
    }
  }
}

}  // namespace

struct TransposePaddedVec4 : TransposeProblem {
  void setup(aisp::Context& ctx) override {
    TransposeProblem::setup(ctx);
    // Rows start at multiples of n·4 bytes (n % 64 == 0), so base alignment is all float4 needs.
    if (reinterpret_cast<std::uintptr_t>(in()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out()) % 16 != 0)
      throw std::invalid_argument("transpose_padded_vec4: in and out must be 16-byte aligned for "
                                  "float4 accesses");
  }

  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, n() / kTile);
    const dim3 block(kThreadsX, kThreadsY);
    transpose_padded_vec4<<<grid, block, 0, ctx.stream()>>>(in(), out(), n());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::TransposePaddedVec4)
