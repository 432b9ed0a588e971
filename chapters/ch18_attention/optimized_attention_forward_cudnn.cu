// Library reference: cuDNN's fused scaled-dot-product attention (flash-attention engine chosen by
// cuDNN's heuristics), B 4, H 16, S 4096, D 128, BF16. Built through the cuDNN 9 backend graph
// API, cuDNN loaded at run time (attention_cudnn.cuh). The hand-written rungs of this ladder are
// measured as fractions of this variant's time in the same run.
// FLOPs 550 GFLOP; bytes 268 MB. Ceiling: BF16 tensor.
#include "attention_cudnn.cuh"

namespace aisp::ch18 {

struct CudnnAttentionD128 : CudnnAttention {
  CudnnAttentionD128() : CudnnAttention(kForwardD128) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::CudnnAttentionD128)
