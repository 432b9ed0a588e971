// Optimized: attention_forward_d64_fa3_wg3 (three consumer warpgroups) with K and V rings of 4
// stages instead of 2 (why: attention_forward_d64_fa3_pingpong_stages4). Shared memory: Q 32 KiB
// (two 128-row boxes for the 192 rows) + 4 x (16 + 16) KiB = 160 KiB, one block per SM.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersStages4D64 : FlashFa3Attention {
  FlashFa3ThreeConsumersStages4D64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.consumers = 3, .stages = 4}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersStages4D64)
