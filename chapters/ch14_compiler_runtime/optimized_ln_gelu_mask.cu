// Optimized: LayerNorm, GELU and the mask in one kernel, compiled ahead of time by nvcc. What
// changed vs the baseline: a warp keeps its row in registers from the load of x to the store of
// y; the LayerNorm output and the GELU output never leave the SM, and are never rounded to bf16.
// 5 bytes per element instead of 13 (the 2.6× cap). The kernel is fused_ln_gelu_mask_source.cuh,
// built twice here, as a library ships it: generic (kCols = 0: the row length a run-time argument,
// every chunk guarded, the register array sized for the longest row accepted, kMaxCols = 4096;
// setup refuses longer rows, with a message) and specialized for 4096-element rows (kCols = 4096,
// the instantiation the NVRTC variant compiles at run time); setup dispatches on the row length
// and logs which it took. Why: in one run (NVIDIA H200, 20261124-064421-3bfc) the generic build
// ran at 0.80 of hbm_bandwidth and the NVRTC build of the same text at 0.86. The specialization is
// the likely difference rather than the compiler: nvcc's sm_90a SASS for kCols = 4096 has the
// NVRTC cubin's instruction count and opcode mix (3952 per 128 elements per lane), the generic
// build a different mix. The specialized nvcc build is to be measured. A library that must take
// other lengths adds specializations for the common ones and keeps the generic kernel for the rest.
// One warp per row (fourth version; the kernel's header has the history): a grid of rows / 4
// blocks of 128, all of a row's loads issued before its first sum, gamma and beta staged in
// shared memory. ptxas (sm_90a): 127 registers (generic) and 128 (specialized), no spills; on
// sm_100a the specialization spills 12 bytes (not measured: no Blackwell here).
// Bytes: 320 MiB (x, mask read; y written). Ceiling: HBM bandwidth.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "fused_ln_gelu_mask_source.cuh"
#include "ln_gelu_mask_common.cuh"

namespace aisp::ch14 {
namespace {

constexpr int kThreads = 128;
constexpr int kWarpsPerBlock = kThreads / 32;  // one row per warp
constexpr int kMaxCols = 4096;                 // the longest row this ahead-of-time build accepts
// 4 blocks of 128 per SM (16 warps, 16 rows in flight): ptxas (sm_90a) fits both builds in 128
// registers with no spills.
constexpr int kMinBlocksPerSm = 4;
// The row length with a prebuilt specialization: a library ships the generic kernel and, beside
// it, the kernel compiled for its most common row lengths, and dispatches on the row length at
// run time. Here one: 4096 (this problem's, a common hidden size).
constexpr int kSpecializedCols = 4096;

using FusedKernel = void (*)(const uint4*, const uint2*, const uint4*, const uint4*, uint4*,
                             unsigned int, int, float);

FusedKernel kernel_for_row_length(int cols) {
  if (cols == kSpecializedCols)
    return fused_ln_gelu_mask<kSpecializedCols, kThreads, kSpecializedCols, kMinBlocksPerSm>;
  return fused_ln_gelu_mask<0, kThreads, kMaxCols, kMinBlocksPerSm>;
}

}  // namespace

struct LnGeluMaskFusedAheadOfTime : LnGeluMaskProblem {
  void setup(aisp::Context& ctx) override {
    LnGeluMaskProblem::setup(ctx);
    const int cols = kCols;  // a run-time value to the dispatch, as a library receives it
    if (cols % 8 != 0 || cols > kMaxCols)
      throw std::invalid_argument(
          "ln_gelu_mask: the ahead-of-time kernel takes rows of up to " + std::to_string(kMaxCols) +
          " elements, a multiple of 8; got " + std::to_string(cols) +
          ". Longer rows need an instantiation with a larger kMaxCols (more registers per "
          "thread) or the NVRTC variant, which bakes the row length in");
    kernel_ = kernel_for_row_length(cols);
    std::fprintf(stderr, "ch14:ln_gelu_mask: row length %d: the %s kernel\n", cols,
                 cols == kSpecializedCols ? "prebuilt 4096-element specialization of the"
                                          : "generic (run-time row length)");
    int blocks_per_sm = 0;
    AISP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, reinterpret_cast<const void*>(kernel_), kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error("ln_gelu_mask: no block of " + std::to_string(kThreads) +
                               " threads of the fused kernel fits on an SM; check its register "
                               "use (nvcc -Xptxas -v)");
    // One warp per row, every row its own warp: no grid-stride loop (the kernel says why).
    blocks_ = static_cast<unsigned int>((kRows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  }

  void run(aisp::Context& ctx) override {
    kernel_<<<blocks_, kThreads, 0, ctx.stream()>>>(
        reinterpret_cast<const uint4*>(x()), reinterpret_cast<const uint2*>(mask()),
        reinterpret_cast<const uint4*>(gamma()), reinterpret_cast<const uint4*>(beta()),
        reinterpret_cast<uint4*>(y()), static_cast<unsigned int>(kRows), kCols, kEps);
    AISP_CHECK_LAUNCH();
  }

 private:
  FusedKernel kernel_ = nullptr;
  unsigned int blocks_ = 0;
};

}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskFusedAheadOfTime)
