// Optimized: LayerNorm, GELU and the mask in one kernel, compiled ahead of time by nvcc. What
// changed vs the baseline: a warp keeps its row in registers from the load of x to the store of
// y; the LayerNorm output and the GELU output never leave the SM, and are never rounded to bf16.
// 5 bytes per element instead of 13 (the 2.6× cap). The kernel is fused_ln_gelu_mask_source.cuh
// with kCols = 0: the row length is a run-time argument, as a library kernel must take it, and
// every chunk is guarded. Its register array is sized for the longest row this build accepts,
// kMaxCols = 4096 (16 chunks of 8 per lane); setup refuses longer rows, with a message. (The
// first two versions accepted 8192 and paid for it in every launch: 96 registers, 5 blocks per
// SM, where the same kernel with the row length baked in needed 56. A library that must take
// longer rows instantiates one kernel per class of row length and dispatches on it; a warp per
// row of 8192 would need twice the registers, or a pair of warps per row.)
// One warp per row (fourth version; the kernel's header has the history): a grid of rows / 4
// blocks of 128, no barrier, all of a row's loads issued before its first sum.
// optimized_ln_gelu_mask_nvrtc compiles the same text with the row length baked in.
// Bytes: 320 MiB (x, mask read; y written). Ceiling: HBM bandwidth.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fused_ln_gelu_mask_source.cuh"
#include "ln_gelu_mask_common.cuh"

namespace aisp::ch14 {
namespace {

constexpr int kThreads = 128;
constexpr int kWarpsPerBlock = kThreads / 32;  // one row per warp
constexpr int kMaxCols = 4096;                 // the longest row this ahead-of-time build accepts
// 4 blocks of 128 per SM (16 warps, 16 rows in flight): ptxas (sm_90a) fits the kernel in 127
// registers with no spills.
constexpr int kMinBlocksPerSm = 4;

}  // namespace

struct LnGeluMaskFusedAheadOfTime : LnGeluMaskProblem {
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
        &blocks_per_sm, fused_ln_gelu_mask<0, kThreads, kMaxCols, kMinBlocksPerSm>, kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error("ln_gelu_mask: no block of " + std::to_string(kThreads) +
                               " threads of the fused kernel fits on an SM; check its register "
                               "use (nvcc -Xptxas -v)");
    // One warp per row, every row its own warp: no grid-stride loop (the kernel says why).
    blocks_ = static_cast<unsigned int>((kRows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  }

  void run(aisp::Context& ctx) override {
    fused_ln_gelu_mask<0, kThreads, kMaxCols, kMinBlocksPerSm>
        <<<blocks_, kThreads, 0, ctx.stream()>>>(
            reinterpret_cast<const uint4*>(x()), reinterpret_cast<const uint2*>(mask()),
            reinterpret_cast<const uint4*>(gamma()), reinterpret_cast<const uint4*>(beta()),
            reinterpret_cast<uint4*>(y()), static_cast<unsigned int>(kRows), kCols, kEps);
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned int blocks_ = 0;
};

}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskFusedAheadOfTime)
