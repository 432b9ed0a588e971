// Optimized: the FA3-style kernel at head dimension 64 with three consumer warpgroups (192 query
// rows per block, FlashAttention-3's tile at this head dim) instead of two (flash_attention_fa3.cu,
// kConsumers 3). What changed vs attention_forward_d64_fa3: a block has 512 threads (producer +
// 3 consumers, setmaxnreg 24 / 160), so each SM sub-partition holds three consumer warps instead
// of two. Why: ncu of the ping-pong rung (NVIDIA H200, prof0) shows a latency-bound kernel: tensor
// pipe 45%, issue slots 44%, 0.64 eligible warps per scheduler, 8.9 active warps per SM of 12 (the
// producer's idle warps exit): a third independent softmax per sub-partition gives the schedulers
// more to issue while one warp waits on its GEMM or its exponentials. S 4096 is not a multiple of
// 192: the last query block of each head has 64 valid rows (22 blocks per head, 3% rows wasted).
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersD64 : FlashFa3Attention {
  FlashFa3ThreeConsumersD64() : FlashFa3Attention(kForwardD64, Fa3D64Build{.consumers = 3}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersD64)
