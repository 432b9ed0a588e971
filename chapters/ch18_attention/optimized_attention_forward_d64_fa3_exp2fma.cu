// Optimized: the FA3-style kernel at head dimension 64 (no ping-pong) with a quarter of the
// softmax's exponentials on the FMA pipe (kPolyEvery 4; why: attention_forward_d64_fa3_pingpong
// _exp2fma). What changed vs attention_forward_d64_fa3: only the exponentials, so the A/B against
// it and against the ping-pong rungs separates the two techniques.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3Exp2FmaD64 : FlashFa3Attention {
  FlashFa3Exp2FmaD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.poly_every = 4}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3Exp2FmaD64)
