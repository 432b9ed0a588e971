// Baseline: the tile stored as it is in global memory, tile[256][32]. Staging is conflict-free
// (a warp fills one 32-word row: 32 banks), but in the scan thread r reads and writes
// tile[r][k]: word 32·r + k, bank (32·r + k) mod 32 = k for every lane of the warp. All 32 lanes
// hit one bank, so each scan access is replayed 32 times: 32 shared-memory wavefronts where one
// would do, for each of the 32 reads and 32 writes of a row.
// Per block: the scan costs 8 warps × 64 accesses × 32 = 16384 wavefronts (shared memory serves
// one per cycle per SM), against 512 for staging in and out; HBM moves the block's 64 KiB in
// ~4000 SM cycles (4.3 TB/s over 132 SMs at 1.98 GHz is ~16 B per SM cycle). Shared memory is
// the bottleneck by about 4×.
// Bytes: 2·n·4 = 2 GiB; n FLOPs. Ceiling: HBM bandwidth.
#include "bank_conflicts_common.cuh"

namespace aisp::ch06 {
namespace {

using P = BankConflictsProblem;

__global__ void __launch_bounds__(P::kThreads)
    row_scan_conflicted(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[P::kRowsPerBlock][P::kCols];
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

struct RowScanConflicted : BankConflictsProblem {
  void run(aisp::Context& ctx) override {
    row_scan_conflicted<<<kBlocks, kThreads, 0, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::RowScanConflicted)
