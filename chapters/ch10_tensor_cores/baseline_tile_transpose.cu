// Baseline: per-thread loads and stores through a shared-memory tile — chapter 7's fastest
// transpose (optimized_transpose_padded_vec4), the best this suite does without TMA. One block of
// 256 threads per 64×64 tile: every thread issues four 16-byte global loads (all in flight before
// the first use), stores the 16 floats into a tile padded by one float per row (65: conflict-free
// both ways, see chapter 7), waits at the block barrier, and reads tile columns back as float4
// stores of out. The threads compute every address, hold every byte in registers on its way, and
// a block has loads in flight only between its start and its barrier (16 KiB).
// Pair tile_transpose: out = inᵀ, 16384×16384 fp32. Bytes: 2 GiB; 0 FLOPs. Ceiling: HBM
// bandwidth.
#include "tile_transpose_common.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kTile = 64;             // floats per tile side
constexpr int kThreadsX = 8;          // float4 columns per warp row: 8 × 16 B = one 128-byte line
constexpr int kThreadsY = 32;         // 8 warps, each 8 × 4 threads
constexpr int kTileVecs = kTile / 4;  // float4 per tile row

__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    transpose_per_thread(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  const int x = static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(threadIdx.y);
  const std::size_t tile_row = static_cast<std::size_t>(blockIdx.y) * kTile;  // in's first row
  const std::size_t tile_col = static_cast<std::size_t>(blockIdx.x) * kTile;  // in's first col

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

struct TileTransposePerThread : TileTransposeProblem {
  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, n() / kTile);
    const dim3 block(kThreadsX, kThreadsY);
    transpose_per_thread<<<grid, block, 0, ctx.stream()>>>(in(), out(), n());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch10

AISP_VARIANT(aisp::ch10::TileTransposePerThread)
