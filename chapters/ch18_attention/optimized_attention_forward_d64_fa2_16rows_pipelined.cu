// Optimized: the pipelined 16-rows-per-warp FA2 kernel (flash_attention_fa2_rows.cu, kMTiles 1) at
// head dimension 64: 8 warps × 16 rows per 128-row block, Q in registers (16 registers), O 32, the
// next tile's scores issued before the current softmax, K/V by TMA in a 4-stage ring. At D 64 it
// fits 128 registers without spilling: two blocks, 16 warps per SM. B 4, H 16, S 4096, D 64:
// FLOPs 275 G. Ceiling: BF16 tensor. sm_90+. Measured (NVIDIA H200, run 20261124-064421-3bfc):
// 0.894 ms, 307 TFLOP/s, 0.592 of cuDNN.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2Rows16PipelinedD64 : FlashFa2RowsAttention {
  FlashFa2Rows16PipelinedD64() : FlashFa2RowsAttention(kForwardD64, RowsKernel::rows16_pipelined) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2Rows16PipelinedD64)
