// Optimized rung 2c: FA2 arithmetic (mma.sync) with 16 query rows per warp and software pipelining
// (flash_attention_fa2_rows.cu, kMTiles 1). What changed vs rung 2b (4 warps × 32 rows, 255
// registers): 8 warps × 16 rows per 128-row block, so O takes 64 registers instead of 128; Q stays
// in registers (loaded once) and each warp issues S_{t+1} = Q·K_{t+1}ᵀ before tile t's softmax and
// P·V, so its MMAs run under its own exponentials. K/V through a 4-stage TMA ring released per
// warp; one block per SM (248 registers). The price: every warp reads all of K and V for 16 rows,
// twice the shared-memory bytes per FLOP, and shared memory became the busiest unit (ncu 77%): the
// 32-row rung 3 is faster. B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor. sm_90+.
// Measured (NVIDIA H200, run 20261124-064421-3bfc): 1.64 ms, 335 TFLOP/s, 0.513 of cuDNN.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2Rows16PipelinedD128 : FlashFa2RowsAttention {
  FlashFa2Rows16PipelinedD128()
      : FlashFa2RowsAttention(kForwardD128, RowsKernel::rows16_pipelined) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2Rows16PipelinedD128)
