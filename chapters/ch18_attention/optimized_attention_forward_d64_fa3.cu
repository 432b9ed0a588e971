// Optimized: the FlashAttention-3-style kernel (flash_attention_fa3.cu) at head dimension 64:
// wgmma + TMA, producer and consumer warpgroups, softmax overlapped with P·V; 128-key tiles.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3D64 : FlashFa3Attention {
  FlashFa3D64() : FlashFa3Attention(kForwardD64, MaskedTiles::skip) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3D64)
