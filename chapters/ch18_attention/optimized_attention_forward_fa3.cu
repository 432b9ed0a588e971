// Optimized rung 3: FlashAttention-3 style (flash_attention_fa3.cu): wgmma from shared memory and
// registers, TMA, a producer warpgroup and two consumer warpgroups with setmaxnreg, K and V rings
// of two stages, and the softmax of tile j overlapped with the P·V product of tile j − 1. What
// changed vs rung 2: the tensor-core instruction (wgmma instead of mma.sync: full rate, no
// ldmatrix), the warp roles, and the softmax/MMA overlap. B 4, H 16, S 4096, D 128: FLOPs 550 G.
// Ceiling: BF16 tensor; compared in the same run with cuDNN (attention_forward_cudnn). sm_90a.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3D128 : FlashFa3Attention {
  FlashFa3D128() : FlashFa3Attention(kForwardD128, MaskedTiles::skip) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3D128)
