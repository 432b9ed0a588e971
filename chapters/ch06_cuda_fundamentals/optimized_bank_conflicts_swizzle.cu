// Optimized (swizzle): the tile keeps its 32-word rows, tile[256][32], but word (r, k) is stored
// in column k ^ (r mod 32) of row r. What changed vs baseline: only the column index, XORed with
// the row's low five bits on every shared-memory access. Why it is faster: in the scan the 32
// lanes of a warp (rows r..r+31, r a multiple of 32, one logical column k) land in banks
// k ^ 0, k ^ 1, …, k ^ 31: 32 different banks, one wavefront per access instead of 32. Staging
// stays conflict-free: a warp writes one row, and XOR with a fixed value permutes the 32 columns
// of that row among themselves. Unlike padding it costs no shared memory and keeps every row
// 128-byte aligned (what TMA and wgmma layouts rely on), for one XOR per access.
// Bytes: 2·n·4 = 2 GiB; n FLOPs. Ceiling: HBM bandwidth.
#include "bank_conflicts_common.cuh"

namespace aisp::ch06 {
namespace {

using P = BankConflictsProblem;
static_assert(P::kCols == 32, "the swizzle XORs the column with the row's low 5 bits: 32 columns");

// The physical column of logical column k in row r.
__device__ __forceinline__ int swizzled(int r, int k) { return k ^ (r & (P::kCols - 1)); }

__global__ void __launch_bounds__(P::kThreads)
    row_scan_swizzled(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[P::kRowsPerBlock][P::kCols];
  const std::size_t block_base = static_cast<std::size_t>(blockIdx.x) * P::kRowsPerBlock * P::kCols;

  // Stage: element e of the block's chunk is logical tile[e / 32][e % 32]; a warp fills one row.
#pragma unroll
  for (int j = 0; j < P::kCols; ++j) {
    const int e = j * P::kThreads + static_cast<int>(threadIdx.x);
    const int row = e / P::kCols;
    tile[row][swizzled(row, e % P::kCols)] = in[block_base + e];
  }
  __syncthreads();

  // Scan: thread r owns row r.
  const int r = static_cast<int>(threadIdx.x);
  float running = 0.0f;
#pragma unroll
  for (int k = 0; k < P::kCols; ++k) {
    running += tile[r][swizzled(r, k)];
    tile[r][swizzled(r, k)] = running;
  }
  __syncthreads();

  // Write back, row by row again.
#pragma unroll
  for (int j = 0; j < P::kCols; ++j) {
    const int e = j * P::kThreads + static_cast<int>(threadIdx.x);
    const int row = e / P::kCols;
    out[block_base + e] = tile[row][swizzled(row, e % P::kCols)];
  }
}

}  // namespace

struct RowScanSwizzled : BankConflictsProblem {
  void run(aisp::Context& ctx) override {
    row_scan_swizzled<<<kBlocks, kThreads, 0, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::RowScanSwizzled)
