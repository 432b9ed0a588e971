// Optimized: attention_forward_d64_fa3_pingpong_exp2fma with an eighth of the softmax's
// exponentials on the FMA pipe (kPolyEvery 8: 8 of 64 per thread and 128-key tile): the low end of
// the share (the balance point, ~21 of 64, is worked out in attention_forward_d64_fa3_pingpong
// _exp2fma_third). MUFU time of the exponential loop 448 clocks per warp and tile instead of 512.
// Which share is fastest is an A/B of the rungs on the GPU.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3PingPongExp2FmaEighthD64 : FlashFa3Attention {
  FlashFa3PingPongExp2FmaEighthD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.pingpong = true, .poly_every = 8}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3PingPongExp2FmaEighthD64)
