// Optimized: the FlashAttention-3-style kernel at head dimension 64 with ping-pong scheduling
// (flash_attention_fa3.cu, kPingPong). What changed vs attention_forward_d64_fa3: the two consumer
// warpgroups take turns issuing their GEMMs (two named barriers: a warpgroup issues its Q·K_jᵀ and
// P_{j−1}·V_{j−1} only after the other has issued its own), so one runs its softmax while the
// other's MMAs occupy the tensor cores. At D 64 a 128-key tile has half the MMA work of D 128 for
// the same softmax (64 exponentials per thread), and without the turns both warpgroups, fed the
// same K tile at the same moment, reach their softmax together and leave the tensor cores idle.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured
// (prediction in the chapter README).
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3PingPongD64 : FlashFa3Attention {
  FlashFa3PingPongD64()
      : FlashFa3Attention(kForwardD64, MaskedTiles::skip, Fa3Schedule::pingpong) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3PingPongD64)
