// Optimized rung: the 32-rows-per-warp kernel (optimized_attention_forward_fa2_32rows.cu's) with
// software pipelining: each 64-key tile is computed in two 32-key passes, S of a pass in 32
// registers instead of 64, and the next pass's S = Q·Kᵀ is issued before this pass's softmax and
// P·V, so a warp's MMAs run under its own exponentials at the 32-row tiling's shared-memory cost
// (flash_attention_fa2_16rows.cu, kMTiles 2, kPassKeys 32). The price: O (128 registers) is
// rescaled per 32 keys instead of per 64. B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16
// tensor. sm_90+. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2Rows32PipelinedD128 : FlashFa2RowsAttention {
  FlashFa2Rows32PipelinedD128()
      : FlashFa2RowsAttention(kForwardD128, RowsKernel::rows32_pipelined) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2Rows32PipelinedD128)
