// Optimized rung: the 16-rows kernel's machinery (flash_attention_fa2_16rows.cu: XOR-form ldmatrix
// addresses, per-warp release of K/V stages on empty mbarriers, no block barrier in the loop) with
// the TMA rung's warp tiling: 4 warps × 32 query rows, every K/V fragment feeding two MMAs, so half
// the shared-memory bytes per FLOP of the 16-row rungs (whose profile shows shared memory as the
// busiest unit, 75%). Q re-read from shared memory, ≤ 255 registers, two blocks (8 warps) per SM,
// a 2-stage K/V ring. B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor. sm_90+.
// Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2Rows32D128 : FlashFa2RowsAttention {
  FlashFa2Rows32D128() : FlashFa2RowsAttention(kForwardD128, RowsKernel::rows32_two_blocks) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2Rows32D128)
