// Optimized rung 2c′: the in-order 16-rows-per-warp FA2 kernel (flash_attention_fa2_16rows.cu)
// held to 128 registers so two blocks share an SM. What changed vs rung 2c: 16 warps per SM (four
// per scheduler) instead of 8, paid for with Q re-read from shared memory every tile (4 KB per warp
// and tile on top of K and V's 32 KB) and a 2-stage K/V ring (2 × 96 KB of shared memory).
// The A/B of latency hiding by more warps against rung 2d's (pipelined) by more work per warp.
// B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor. sm_90+. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2RowsTwoBlocksD128 : FlashFa2RowsAttention {
  FlashFa2RowsTwoBlocksD128()
      : FlashFa2RowsAttention(kForwardD128, RowsKernel::in_order_two_blocks) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2RowsTwoBlocksD128)
