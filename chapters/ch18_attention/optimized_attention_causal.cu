// Optimized: causal attention that skips the fully masked tiles, in pairs of query blocks on a
// persistent grid. Same FA3-style kernel as the baseline (flash_attention_fa3.cu); what changed:
//   - a block of query rows [m0, m0 + 128) visits only key tiles up to the diagonal (m0 / 128 + 1
//     of the 32) and masks element by element only in the diagonal tile: 528 of 1024 tiles;
//   - query blocks go in pairs Q − 1 − x and x of one head (Schedule::causal_pairs): every pair
//     has 33 tiles, so the work items are equal and no heavy block starts late;
//   - one block of threads per SM walks the pairs (items blockIdx.x, + #SMs, ...), head after
//     head, and its producer runs on into the next query block (Q into a second buffer, K/V into
//     the same rings), so a block's prologue overlaps the previous one's last tiles.
// Expected from the tile count alone: 528 / 1024 = 0.516 of the dense kernel's tiles.
// B 4, H 16, S 4096, D 128; FLOPs 275 G (visible pairs). Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct CausalSkipMaskedTilesPersistentPairs : FlashFa3Attention {
  CausalSkipMaskedTilesPersistentPairs()
      : FlashFa3Attention(kCausalD128, CausalPairs{.persistent = true}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CausalSkipMaskedTilesPersistentPairs)
