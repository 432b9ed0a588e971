// Baseline: a copy whose warps are not coalesced. Thread t copies element
// (t mod rows)·cols + t / rows of the 16384×16384 matrix, so consecutive threads walk down a
// column: the 32 lanes of a warp touch 32 addresses 64 KiB apart, i.e. 32 different 32-byte
// sectors for 128 useful bytes (4 per sector), on both the load and the store. Every element is
// still copied exactly once.
// Bytes: 2 GiB (1 GiB read + 1 GiB written); 0 FLOPs. Ceiling: HBM bandwidth.
#include "copy_coalesced_common.cuh"

namespace aisp::ch07 {
namespace {

// Thread slot t = base + k·blockDim + threadIdx for k < kElementsPerThread, copied at the
// element t reaches walking down the columns.
__global__ void copy_column_order(const float* __restrict__ in, float* __restrict__ out,
                                  int log2_rows, int log2_cols) {
  constexpr int kPer = CoalescedCopyProblem::kElementsPerThread;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kPer + threadIdx.x;
  const std::size_t row_mask = (std::size_t{1} << log2_rows) - 1;
  std::size_t index[kPer];
  float v[kPer];
#pragma unroll
  for (int k = 0; k < kPer; ++k) {
    const std::size_t t = base + static_cast<std::size_t>(k) * blockDim.x;
    index[k] = ((t & row_mask) << log2_cols) + (t >> log2_rows);  // row = t mod rows, col = t / rows
    v[k] = in[index[k]];
  }
#pragma unroll
  for (int k = 0; k < kPer; ++k) out[index[k]] = v[k];
}

}  // namespace

struct CopyColumnOrder : CoalescedCopyProblem {
  void run(aisp::Context& ctx) override {
    copy_column_order<<<kBlocks, kThreads, 0, ctx.stream()>>>(in(), out(), kLog2Rows, kLog2Cols);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::CopyColumnOrder)
