// Optimized: attention_forward_d64_fa3_wg3 with an eighth of the softmax's exponentials on the FMA
// pipe (kPolyEvery 8; why: attention_forward_d64_fa3_pingpong_exp2fma and _eighth): the two D 64
// techniques combined, three consumer warpgroups and a lighter MUFU load.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersExp2FmaD64 : FlashFa3Attention {
  FlashFa3ThreeConsumersExp2FmaD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.poly_every = 8, .consumers = 3}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersExp2FmaD64)
