// Optimized: causal attention that skips the fully masked tiles, in pairs of query blocks on a
// persistent grid. Same FA3-style kernel as the baseline (flash_attention_fa3.cu); what changed:
//   - a block of query rows [m0, m0 + 128) visits only key tiles up to the diagonal (m0 / 128 + 1
//     of the 32) and masks element by element only in the diagonal tile: 528 of 1024 tiles;
//   - query blocks go in pairs Q − 1 − x and x of one head (Schedule::causal_pairs): every pair
//     has 33 tiles, so the work items are equal and no heavy block starts late;
//   - one block of threads per SM walks the pairs (items blockIdx.x, + #SMs, ...), head after
//     head, and its producer runs on into the next query block (Q into a second buffer, K/V into
//     the same rings), so a block's prologue overlaps the previous one's last tiles.
// Expected: per head 528 of the dense kernel's 1024 key tiles (0.516); 1024 pairs of 33 tiles over
// 132 SMs end after 8 pairs, 264 tile-times, against the dense grid's 16 blocks of 32 (512): 0.516
// again, less the dense kernel's masking of its 528 tiles on and past the diagonal (the masked
// dense kernel takes ~7% longer than the unmasked one): ~0.48-0.52. Measured (NVIDIA H200, run
// 20261124-091444-00a7, commit 2829519): 465 µs against 931 µs, 0.50 (2.00× [2.00, 2.00]); main's
// kernel, one block per query block heaviest-first, 564 against 929 µs (0.607, run
// 20261124-072032-b154); the same pairs one block per pair, 483 against 935 µs (0.517, removed).
// B 4, H 16, S 4096, D 128; FLOPs 275 G (visible pairs). Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct CausalSkipMaskedTilesPersistentPairs : FlashFa3Attention {
  CausalSkipMaskedTilesPersistentPairs() : FlashFa3Attention(kCausalD128, CausalPairs{}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CausalSkipMaskedTilesPersistentPairs)
