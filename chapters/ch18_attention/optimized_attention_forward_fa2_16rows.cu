// Optimized rung 2c: FA2 arithmetic (mma.sync) with 16 query rows per warp
// (flash_attention_fa2_16rows.cu, in-order schedule). What changed vs rung 2b (TMA, 4 warps × 32
// rows, 255 registers, 2 warps per scheduler): 8 warps × 16 rows per 128-row block, so O takes 64
// registers instead of 128 and Q stays in registers (loaded once); a 4-stage TMA K/V ring with
// per-warp release. The price: twice the ldmatrix bytes per FLOP (each warp reads the whole K/V
// tile for 16 rows). B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor. sm_90+.
// Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2RowsD128 : FlashFa2RowsAttention {
  FlashFa2RowsD128() : FlashFa2RowsAttention(kForwardD128, RowsKernel::in_order) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2RowsD128)
