// Optimized rung 2: the FA2 kernel's arithmetic with K/V brought by TMA into a two-stage mbarrier
// pipeline (flash_attention_fa2_tma.cu). What changed vs rung 1: one thread issues bulk tensor
// copies instead of every thread issuing cp.async, and the next tile's K and V both stream during
// the whole current tile. B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16 tensor. sm_90+.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2TmaD128 : FlashFa2TmaAttention {
  FlashFa2TmaD128() : FlashFa2TmaAttention(kForwardD128) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2TmaD128)
