// Optimized: attention_forward_d64_fa3_pingpong_exp2fma with about a third of the softmax's
// exponentials on the FMA pipe (kPolyEvery 3: 5 of 16 eight-key column groups, 20 of 64 per thread
// and 128-key tile). The balance it aims at: in the exponential loop a warp issues one MUFU.EX2
// per 8 clocks (4 lanes per clock per SM sub-partition) and 2 more instructions per element
// (the FFMA that forms the exponent, the FADD of the row sum); an element moved to the polynomial
// saves 8 MUFU clocks and costs 7 issues, so MUFU time 8·(64 − k) and issue 192 + 7k meet at
// k ≈ 21. The quarter rung (k 16) and the eighth (k 8) bracket it from below.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3PingPongExp2FmaThirdD64 : FlashFa3Attention {
  FlashFa3PingPongExp2FmaThirdD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.pingpong = true, .poly_every = 3}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3PingPongExp2FmaThirdD64)
