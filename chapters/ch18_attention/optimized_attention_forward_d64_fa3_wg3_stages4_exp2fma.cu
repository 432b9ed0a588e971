// Optimized: the three D 64 techniques together: three consumer warpgroups, K/V rings of 4 stages,
// an eighth of the exponentials on the FMA pipe (attention_forward_d64_fa3_wg3, _wg3_stages4 and
// _wg3_exp2fma each add one of them).
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersStages4Exp2FmaD64 : FlashFa3Attention {
  FlashFa3ThreeConsumersStages4Exp2FmaD64()
      : FlashFa3Attention(kForwardD64,
                          Fa3D64Build{.poly_every = 8, .consumers = 3, .stages = 4}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersStages4Exp2FmaD64)
