// Optimized: the 32-rows-per-warp FA2 kernel (flash_attention_fa2_rows.cu, kMTiles 2; the D 128
// rung that reaches 366 TFLOP/s) at head dimension 64: 4 warps × 32 rows per 128-row block, Q
// re-read from shared memory, 203 registers, two blocks per SM, a 4-stage K/V ring (81 KB per
// block; a D 64 tile takes half as long, so more stages of lead). B 4, H 16, S 4096, D 64: FLOPs
// 275 G. Ceiling: BF16 tensor. sm_90+. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2Rows32D64 : FlashFa2RowsAttention {
  FlashFa2Rows32D64() : FlashFa2RowsAttention(kForwardD64, RowsKernel::rows32) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2Rows32D64)
