// Optimized rung 2d: rung 2c (16 query rows per warp, Q in registers) with the next tile's scores
// issued first (flash_attention_fa2_16rows.cu, pipelined schedule). What changed vs rung 2c: per
// tile a warp issues S_{t+1} = Q·K_{t+1}ᵀ (64 mma.sync) before tile t's softmax and P·V, so its
// MMAs run on the tensor cores while its exponentials and O rescale issue; S is held twice (2 × 32
// registers). The algorithm is still FlashAttention-2's; only the order within a warp changed.
// B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor. sm_90+. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2RowsPipelinedD128 : FlashFa2RowsAttention {
  FlashFa2RowsPipelinedD128() : FlashFa2RowsAttention(kForwardD128, RowsKernel::pipelined) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2RowsPipelinedD128)
