// Optimized: the pipelined 16-rows-per-warp FA2 kernel (flash_attention_fa2_16rows.cu) at head
// dimension 64: 8 warps × 16 rows per 128-row block, Q in registers (16 registers), O 32, the next
// tile's scores issued before the current softmax, K/V by TMA in a 4-stage ring. B 4, H 16, S 4096,
// D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90+. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2RowsPipelinedD64 : FlashFa2RowsAttention {
  FlashFa2RowsPipelinedD64() : FlashFa2RowsAttention(kForwardD64, RowsKernel::pipelined) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2RowsPipelinedD64)
