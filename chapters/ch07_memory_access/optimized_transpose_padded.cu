// Optimized (step 2): the tiled transpose with each tile row padded by one float. What changed
// vs optimized_transpose_tiled: only the tile's row length, 32 → 33 floats. Why it is faster:
// element (r, c) of the tile now sits in bank (33·r + c) mod 32 = (r + c) mod 32, so the 32
// lanes reading one tile column hit 32 different banks; the 32-way conflict is gone and the
// column read costs one shared-memory wavefront instead of 32.
// How far it gets: each thread has only 4 scalar loads in flight (16 bytes), and the barrier
// keeps a block from overlapping its loads and stores, so this plain 32×8 version sits near
// 85% of the copy ceiling, not above it (3580–3610 GB/s, 84% of 4275, in exploratory H200 runs
// outside the harness). optimized_transpose_padded_vec4 moves more bytes per thread to pass it.
// Bytes: 2·n²·4 = 2 GiB; 0 FLOPs. Ceiling: HBM bandwidth.
#include "transpose_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;  // 32×8 threads, each moving 4 elements of the 32×32 tile

__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + 1];  // +1: a column's 32 elements in 32 different banks

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

struct TransposePadded : TransposeProblem {
  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, n() / kTile);
    const dim3 block(kTile, kBlockRows);
    transpose_padded<<<grid, block, 0, ctx.stream()>>>(in(), out(), n());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::TransposePadded)
