// Baseline: unfused attention (attention_unfused.cuh): cuBLAS Q·Kᵀ into an FP32 S×S scores
// matrix, a softmax kernel writing BF16 probabilities, cuBLAS P·V. B 4, H 16, S 4096, D 128.
// FLOPs 4·B·H·S²·D = 550 GFLOP; bytes the problem needs 268 MB, bytes this variant moves
// ≈ 13.2 GB (the scores and P round trips). Ceilings: BF16 tensor and HBM bandwidth.
#include "attention_unfused.cuh"

namespace aisp::ch18 {

struct UnfusedAttentionD128 : UnfusedAttention {
  UnfusedAttentionD128() : UnfusedAttention(kForwardD128) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::UnfusedAttentionD128)
