// A/B beside optimized_ln_gelu_mask: the third version of the fused kernel (one block of 128
// threads per row, persistent grid, the next row loaded one row ahead, two block sums per row;
// fused_ln_gelu_mask_block_rows.cuh), compiled ahead of time exactly as optimized_ln_gelu_mask was
// at the gate of 2026-11-24 (0.82 of hbm_bandwidth there). The pair measures the fourth version
// (one warp per row) against it in the same run.
// Bytes: 320 MiB (x, mask read; y written). Ceiling: HBM bandwidth.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fused_ln_gelu_mask_block_rows.cuh"
#include "ln_gelu_mask_common.cuh"

namespace aisp::ch14 {
namespace {

constexpr int kThreads = 128;
constexpr int kMaxCols = 4096;  // the longest row this ahead-of-time build accepts

}  // namespace

struct LnGeluMaskFusedBlockRows : LnGeluMaskProblem {
  void setup(aisp::Context& ctx) override {
    LnGeluMaskProblem::setup(ctx);
    if (kCols % 8 != 0 || kCols > kMaxCols)
      throw std::invalid_argument(
          "ln_gelu_mask: the ahead-of-time kernel takes rows of up to " + std::to_string(kMaxCols) +
          " elements, a multiple of 8; got " + std::to_string(kCols) +
          ". Longer rows need an instantiation with a larger kMaxCols (more registers per "
          "thread) or the NVRTC variant, which bakes the row length in");
    int blocks_per_sm = 0;
    AISP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, fused_ln_gelu_mask_block_rows<0, kThreads, kMaxCols>, kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error("ln_gelu_mask: no block of " + std::to_string(kThreads) +
                               " threads of the fused kernel fits on an SM; check its register "
                               "use (nvcc -Xptxas -v)");
    const int resident = blocks_per_sm * ctx.device_properties().multiProcessorCount;
    blocks_ = static_cast<unsigned int>(resident < kRows ? resident : kRows);
  }

  void run(aisp::Context& ctx) override {
    fused_ln_gelu_mask_block_rows<0, kThreads, kMaxCols><<<blocks_, kThreads, 0, ctx.stream()>>>(
        reinterpret_cast<const uint4*>(x()), reinterpret_cast<const uint2*>(mask()),
        reinterpret_cast<const uint4*>(gamma()), reinterpret_cast<const uint4*>(beta()),
        reinterpret_cast<uint4*>(y()), static_cast<unsigned int>(kRows), kCols, kEps);
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned int blocks_ = 0;
};

}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskFusedBlockRows)
