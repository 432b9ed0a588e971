// Baseline: a copy whose warps are not coalesced. Thread t copies element
// (t mod rows)·cols + t / rows of the 16384×16384 matrix, so consecutive threads walk down a
// column: the 32 lanes of a warp touch 32 addresses 64 KiB apart, i.e. 32 different 32-byte
// sectors for 128 useful bytes (4 per sector), on both the load and the store. Every element is
// still copied exactly once.
// Bytes: 2 GiB (1 GiB read + 1 GiB written); 0 FLOPs. Ceiling: HBM bandwidth.
#include "copy_coalesced_common.cuh"

namespace aisp::ch07 {
namespace {

__global__ void copy_column_order(const float* __restrict__ in, float* __restrict__ out,
                                  std::size_t count, int log2_rows, int log2_cols) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count)
    return;
  const std::size_t row = t & ((std::size_t{1} << log2_rows) - 1);  // t mod rows
  const std::size_t col = t >> log2_rows;                           // t / rows
  const std::size_t i = (row << log2_cols) + col;
  out[i] = in[i];
}

}  // namespace

struct CopyColumnOrder : CoalescedCopyProblem {
  void run(aisp::Context& ctx) override {
    copy_column_order<<<kBlocks, kThreads, 0, ctx.stream()>>>(in(), out(), kCount, kLog2Rows,
                                                              kLog2Cols);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::CopyColumnOrder)
