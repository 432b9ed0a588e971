// Optimized: attention_forward_d64_fa3_pingpong_exp2fma with an eighth of the softmax's
// exponentials on the FMA pipe (kPolyEvery 8: 8 of 64 per thread and 128-key tile). The other side
// of the balance: a warp's softmax is bound by the MUFU (64·8 = 512 clocks for 64 EX2 at 4 lanes per
// clock per SM sub-partition) and by its own issue (one instruction per clock, ~500 per tile in
// all, ncu of the ping-pong rung); each exponential moved saves 8 MUFU clocks and costs 7 issues,
// so the two meet at about 8 moved, and at 16 (the quarter rung) issue may bind instead. Which
// share is fastest is an A/B of the two rungs on the GPU.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3PingPongExp2FmaEighthD64 : FlashFa3Attention {
  FlashFa3PingPongExp2FmaEighthD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.pingpong = true, .poly_every = 8}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3PingPongExp2FmaEighthD64)
