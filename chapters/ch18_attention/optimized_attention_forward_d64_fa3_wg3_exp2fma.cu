// Optimized: attention_forward_d64_fa3_wg3 with an eighth of the softmax's exponentials computed
// on the FMA pipe (flash_attention_fa3.cu, exp2_fma_poly, kPolyEvery 8: 8 of a thread's 64 per
// 128-key tile are a degree-3 polynomial plus an exponent-field add, 8 FMA/ALU instructions,
// instead of one MUFU.EX2). Why here: the three consumer warpgroups' softmaxes share each
// sub-partition's MUFU (16 EX2 per clock per SM; ncu of the ping-pong rung: MUFU pipe 48% busy,
// tensor 46.5%). On the two-consumer ping-pong kernel the same change was 3% slower (chapter
// README), so it belongs to this rung only. Relative error of the polynomial <= 1.0e-4 (BF16 P
// rounds at 2^-9). Measured (NVIDIA H200): 650 µs, 0.827 of cuDNN (run 20261124-061451-0e01);
// 636 µs, 0.835 (run 20261124-064421-3bfc): the fastest D 64 rung, short of the 0.85 target.
// B 4, H 16, S 4096, D 64: FLOPs 275 G. Ceiling: BF16 tensor. sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersExp2FmaD64 : FlashFa3Attention {
  FlashFa3ThreeConsumersExp2FmaD64()
      : FlashFa3Attention(kForwardD64, Fa3D64Kernel{.consumers = 3, .poly_every = 8}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersExp2FmaD64)
