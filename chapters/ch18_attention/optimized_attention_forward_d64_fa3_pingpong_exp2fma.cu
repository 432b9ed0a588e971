// Optimized: the ping-pong FA3-style kernel at head dimension 64 with a quarter of the softmax's
// exponentials on the FMA pipe (flash_attention_fa3.cu, exp2_fma_poly, kPolyEvery 4). What changed
// vs attention_forward_d64_fa3_pingpong: 16 of a thread's 64 exponentials per 128-key tile (every
// 4th 8-key column group) are a degree-3 polynomial plus an exponent-field add (8 FMA/ALU
// instructions) instead of one MUFU.EX2. Why: the MUFU does 16 exponentials per clock per SM, so
// at D 64 a tile's 64 per thread keep it busy 512 clocks per warpgroup, as long as the tile's two
// GEMMs keep the tensor cores (2·2·64·128·64 FLOPs at ~4096 per clock per SM); with both pipes
// needed in full, any softmax not hidden under the other warpgroup's GEMMs shows. A quarter moved
// leaves the MUFU 384 clocks per warpgroup and tile, and adds 112 FMA/ALU issues per warp and tile.
// Relative error of the polynomial <= 1.0e-4 (BF16 P rounds at 2^-9).
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a. Not yet measured.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3PingPongExp2FmaD64 : FlashFa3Attention {
  FlashFa3PingPongExp2FmaD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Build{.pingpong = true, .poly_every = 4}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3PingPongExp2FmaD64)
