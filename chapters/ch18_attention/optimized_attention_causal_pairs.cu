// Optimized (A/B of attention_causal): the same pairs of query blocks (Q − 1 − x, x: 33 key
// tiles each), one block of threads per pair, which the hardware hands out in order (head after
// head), instead of attention_causal's persistent grid of one block per SM. Same kernel
// instantiation (flash_attention_fa3.cu, Schedule::causal_pairs); only the grid differs.
// B 4, H 16, S 4096, D 128; FLOPs 275 G (visible pairs). Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct CausalSkipMaskedTilesPairs : FlashFa3Attention {
  CausalSkipMaskedTilesPairs() : FlashFa3Attention(kCausalD128, CausalPairs{.persistent = false}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CausalSkipMaskedTilesPairs)
