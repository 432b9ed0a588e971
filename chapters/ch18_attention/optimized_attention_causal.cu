// Optimized: causal attention that skips the fully masked tiles. Same FA3-style kernel as the
// baseline (flash_attention_fa3.cu); what changed: a block of query rows [m0, m0 + 128) visits
// only key tiles up to the diagonal (m0 / 128 + 1 of the 32), masks element by element only in
// the diagonal tile, and the blocks with the most tiles are scheduled first. About half the work
// of the dense kernel: its time should be ≤ 0.6× the baseline's (the issue's target).
// B 4, H 16, S 4096, D 128; FLOPs 275 G (visible pairs). Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct CausalSkipMaskedTiles : FlashFa3Attention {
  CausalSkipMaskedTiles() : FlashFa3Attention(kCausalD128, MaskedTiles::skip) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CausalSkipMaskedTiles)
