// Optimized (padding): the tile's rows padded by one word, tile[256][33]. What changed vs
// baseline: only the row length in shared memory, 32 → 33 floats (and the 1 KiB it costs).
// Why it is faster: word (r, k) now sits at 33·r + k, in bank (33·r + k) mod 32 = (r + k) mod 32,
// so in the scan the 32 lanes of a warp (rows r..r+31, one column k) hit 32 different banks: one
// wavefront per access instead of 32. Staging stays conflict-free (a warp writes one row, 32
// consecutive words). The scan now costs 8 warps × 64 = 512 wavefronts per block, far below the
// ~4000 SM cycles HBM needs for the block's 64 KiB, so the kernel becomes memory-bound.
// Bytes: 2·n·4 = 2 GiB; n FLOPs. Ceiling: HBM bandwidth.
#include "bank_conflicts_common.cuh"

namespace aisp::ch06 {
namespace {

using P = BankConflictsProblem;

__global__ void __launch_bounds__(P::kThreads)
    row_scan_padded(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[P::kRowsPerBlock][P::kCols + 1];  // +1: a column spans all 32 banks
  const std::size_t block_base = static_cast<std::size_t>(blockIdx.x) * P::kRowsPerBlock * P::kCols;

  // Stage: element e of the block's chunk is tile[e / 32][e % 32]; a warp fills one row.
#pragma unroll
  for (int j = 0; j < P::kCols; ++j) {
    const int e = j * P::kThreads + static_cast<int>(threadIdx.x);
    tile[e / P::kCols][e % P::kCols] = in[block_base + e];
  }
  __syncthreads();

  // Scan: thread r owns row r.
  const int r = static_cast<int>(threadIdx.x);
  float running = 0.0f;
#pragma unroll
  for (int k = 0; k < P::kCols; ++k) {
    running += tile[r][k];
    tile[r][k] = running;
  }
  __syncthreads();

  // Write back, row by row again.
#pragma unroll
  for (int j = 0; j < P::kCols; ++j) {
    const int e = j * P::kThreads + static_cast<int>(threadIdx.x);
    out[block_base + e] = tile[e / P::kCols][e % P::kCols];
  }
}

}  // namespace

struct RowScanPadded : BankConflictsProblem {
  void run(aisp::Context& ctx) override {
    row_scan_padded<<<kBlocks, kThreads, 0, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::RowScanPadded)
