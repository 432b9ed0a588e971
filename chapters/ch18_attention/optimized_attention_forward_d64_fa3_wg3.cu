// Optimized: the FA3-style kernel at head dimension 64 with three consumer warpgroups (192 query
// rows per block, FlashAttention-3's tile at this head dim) instead of two (flash_attention_fa3.cu,
// kConsumers 3). What changed vs attention_forward_d64_fa3: a block has 512 threads (producer +
// 3 consumers, setmaxnreg 24 / 160; ptxas: 128 registers, no spills), so each SM sub-partition
// holds three consumer warps instead of two: a third independent softmax for the schedulers while
// the others wait on their GEMMs or exponentials (ncu of the ping-pong rung: 0.64 eligible warps
// per scheduler, tensor pipe 45%). S 4096 = 21·192 + 64: the last query block of each head has one
// warpgroup of valid rows (22 blocks per head, 3% of the rows computed and not stored).
// Measured (NVIDIA H200): 662 µs, 0.810 of cuDNN, level with ping-pong (run 20261124-061451-0e01);
// with the P·V wait pinned (flash_attention_fa3.cu, pin) 587 µs, 0.901 [0.894, 0.907] of cuDNN
// (run 20261124-091444-00a7, commit 2829519).
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersD64 : FlashFa3Attention {
  FlashFa3ThreeConsumersD64() : FlashFa3Attention(kForwardD64, Fa3D64Kernel{.consumers = 3}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersD64)
