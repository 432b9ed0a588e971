// Optimized: FlashAttention-2-style kernel at head dimension 64 (flash_attention_fa2.cu): the
// same tiles (128 query rows per block, 64-key K/V tiles through shared memory by cp.async,
// mma.sync, online softmax), half the work per key. B 4, H 16, S 4096, D 64: FLOPs 275 G;
// bytes 134 MB. Ceiling: BF16 tensor.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2D64 : FlashFa2Attention {
  FlashFa2D64() : FlashFa2Attention(kForwardD64, MaskedTiles::skip) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2D64)
