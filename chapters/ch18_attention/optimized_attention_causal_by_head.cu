// Optimized (A/B reference of attention_causal): the same kernel skipping masked tiles, its query
// blocks launched head by head, each head's heaviest first (the order of run
// 20261124-012652-78c6), against attention_causal's groups of 4 heads. Timed in the same run, the
// two separate the block order from the run-to-run spread.
// B 4, H 16, S 4096, D 128; FLOPs 275 G (visible pairs). Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct CausalSkipMaskedTilesByHead : FlashFa3Attention {
  CausalSkipMaskedTilesByHead() : FlashFa3Attention(kCausalD128, CausalByHead{}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CausalSkipMaskedTilesByHead)
