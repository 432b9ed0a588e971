// Optimized (step 1): tiled transpose through shared memory. What changed vs the naive baseline:
// the block stages its 32×32 tile in shared memory, so both global accesses are coalesced: a warp
// reads 32 consecutive floats of an input row into the tile, and after a barrier writes 32
// consecutive floats of an output row, taken from a column of the tile. The transposition happens
// in shared memory, where a strided access costs no DRAM sectors.
// What is still slow: a tile row is 32 floats = 128 bytes, so tile[0][c], tile[1][c], ... all sit
// in the same one of shared memory's 32 four-byte banks; the column read of a warp is a 32-way
// bank conflict, replayed 32 times. optimized_transpose_padded fixes that and nothing else.
// Bytes: 2·n²·4 = 2 GiB; 0 FLOPs. Ceiling: HBM bandwidth.
#include "transpose_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;  // 32×8 threads, each moving 4 elements of the 32×32 tile

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile];

  // Read the tile row by row: lane x of a warp reads column x, coalesced.
  const std::size_t in_col = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
  const std::size_t in_row = static_cast<std::size_t>(blockIdx.y) * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows)
    tile[threadIdx.y + j][threadIdx.x] = in[(in_row + j) * n + in_col];
  __syncthreads();

  // Write the transposed tile row by row: lane x writes column x of an output row (coalesced),
  // reading row x of the tile's column.
  const std::size_t out_col = static_cast<std::size_t>(blockIdx.y) * kTile + threadIdx.x;
  const std::size_t out_row = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows)
    out[(out_row + j) * n + out_col] = tile[threadIdx.x][threadIdx.y + j];
}

}  // namespace

struct TransposeTiled : TransposeProblem {
  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, n() / kTile);
    const dim3 block(kTile, kBlockRows);
    transpose_tiled<<<grid, block, 0, ctx.stream()>>>(in(), out(), n());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::TransposeTiled)
