// Optimized rung 3: FA2 arithmetic (mma.sync, no wgmma), 4 warps × 32 query rows per 128-row
// block as in rung 2b, with a leaner loop (flash_attention_fa2_rows.cu, kMTiles 2). What changed
// vs rung 2b (the TMA rung, rolled): K/V through a TMA ring whose stages each warp releases on an
// empty mbarrier (no block barrier in the loop, so warps' softmax phases drift apart), and
// ldmatrix addresses in XOR form (one LOP3 per k-step and tile instead of ~4 integer instructions
// per load), the Q·Kᵀ k-loop unrolled by 2 (255 registers, no spills). Two blocks per SM, 2 stages.
// B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor (mma.sync tier). sm_90+.
// Measured (NVIDIA H200, run 20261124-064421-3bfc): 1.50 ms, 366 TFLOP/s, 0.553 of cuDNN.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2Rows32D128 : FlashFa2RowsAttention {
  FlashFa2Rows32D128() : FlashFa2RowsAttention(kForwardD128, RowsKernel::rows32) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2Rows32D128)
