// Baseline: sliding-window attention (each query sees itself and the 1023 keys before it) by the
// dense kernel applying the mask: the FA3-style kernel visits all 32 key tiles of every block and
// masks the scores outside the window. B 4, H 16, S 4096, D 128, window 1024.
// FLOPs counted: the visible pairs only, 4·B·H·D·(S·W − W(W−1)/2) = 120 G. Ceiling: BF16 tensor.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct SlidingWindowDenseMasked : FlashFa3Attention {
  SlidingWindowDenseMasked() : FlashFa3Attention(kSlidingWindowD128, MaskedTiles::compute) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::SlidingWindowDenseMasked)
