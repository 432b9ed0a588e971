// Library reference at head dimension 64: cuDNN's fused SDPA, B 4, H 16, S 4096, D 64, BF16,
// through the cuDNN 9 backend graph API (attention_cudnn.cuh).
// FLOPs 275 GFLOP; bytes 134 MB. Ceiling: BF16 tensor.
#include "attention_cudnn.cuh"

namespace aisp::ch18 {

struct CudnnAttentionD64 : CudnnAttention {
  CudnnAttentionD64() : CudnnAttention(kForwardD64) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CudnnAttentionD64)
