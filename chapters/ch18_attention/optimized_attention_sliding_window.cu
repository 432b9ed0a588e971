// Optimized: sliding-window attention visiting only the key tiles inside the window. Same
// FA3-style kernel as the baseline; a block of rows [m0, m0 + 128) visits tiles from the one
// holding key m0 − 1023 to the diagonal: 9 of 32 (fewer near the start), masking element by
// element only where a tile crosses the window's edges. B 4, H 16, S 4096, D 128, window 1024;
// FLOPs 120 G (visible pairs). Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct SlidingWindowSkipTiles : FlashFa3Attention {
  SlidingWindowSkipTiles() : FlashFa3Attention(kSlidingWindowD128, MaskedTiles::skip) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::SlidingWindowSkipTiles)
