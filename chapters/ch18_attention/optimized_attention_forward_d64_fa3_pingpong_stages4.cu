// Optimized: the ping-pong FA3-style kernel at head dimension 64 with K and V rings of 4 stages
// instead of 2 (flash_attention_fa3.cu, kStages 4). What changed vs attention_forward_d64_fa3
// _pingpong: only the ring depth (shared memory 82 -> 146 KiB, still one block per SM). Why: a
// stage is refilled only after both consumer warpgroups released it, and with the turns the second
// one releases it half a loop period later; at D 64 the period is half that of D 128 (same softmax,
// half the MMAs), so two stages give the producer's TMA about one period (~1,100 clocks at the
// measured rate) to bring the next 16 KiB tiles from L2, close to a TMA round trip. Four give three.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3PingPongStages4D64 : FlashFa3Attention {
  FlashFa3PingPongStages4D64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.pingpong = true, .stages = 4}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3PingPongStages4D64)
