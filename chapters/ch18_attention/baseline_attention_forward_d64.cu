// Baseline: unfused attention (attention_unfused.cuh) at head dimension 64: cuBLAS Q·Kᵀ into an
// FP32 S×S scores matrix, a softmax kernel writing BF16 probabilities, cuBLAS P·V.
// B 4, H 16, S 4096, D 64: FLOPs 275 GFLOP; the problem needs 134 MB, this variant moves ≈ 13 GB
// (the same S×S round trips as at D 128, for half the FLOPs). Ceilings: BF16 tensor and HBM.
#include "attention_unfused.cuh"

namespace aisp::ch18 {

struct UnfusedAttentionD64 : UnfusedAttention {
  UnfusedAttentionD64() : UnfusedAttention(kForwardD64) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::UnfusedAttentionD64)
