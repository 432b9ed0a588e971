// Optimized: attention_forward_d64_fa3_wg3 with the softmax's row sums on the tensor cores
// (flash_attention_fa3.cu, SoftmaxForm::tensor_sums). P·V is issued 72 columns wide instead of
// 64: the 8 extra columns of B are a 2 KiB block of BF16 ones in shared memory (the descriptor's
// second panel), so columns 64..71 of the O accumulator are the running sum of each row of P,
// rescaled with O, and the epilogue reads l from there. Each consumer thread issues 64 FADD (and
// the final 2 SHFL) fewer per 128-key tile, of ~500 instructions per warp; the tensor cores do
// 12.5% more P·V work (6% of the tile's). At head dim 64 the softmax's instruction stream, not the
// tensor cores, sets the pace (ncu: tensor pipe 46%, issue slots 43%, top stall "wait").
// The sum is of the BF16 P that the numerator multiplies, not of the FP32 exponentials.
// B 4, H 16, S 4096, D 64: FLOPs 275 G (counted without the extra columns). Ceiling: BF16 tensor.
// sm_90a. Measured (NVIDIA H200, run 20261124-091444-00a7, commit 2829519): 561 µs, 490 TFLOP/s,
// 0.975 [0.967, 0.993] of cuDNN, against 587 µs (0.901) for the same kernel with FADD sums.
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa3ThreeConsumersTensorSumsD64 : FlashFa3Attention {
  FlashFa3ThreeConsumersTensorSumsD64()
      : FlashFa3Attention(kForwardD64,
                          Fa3D64Kernel{.consumers = 3, .softmax = Fa3D64Softmax::tensor_sums}) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa3ThreeConsumersTensorSumsD64)
