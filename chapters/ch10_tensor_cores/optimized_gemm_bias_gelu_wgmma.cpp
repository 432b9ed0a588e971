// The hand-written wgmma GEMM with bias + GELU in its epilogue: the ladder's persistent rung
// (warp-specialized, 128×256 tiles split by two consumer warpgroups, 4-slot TMA ring, one block
// per SM), whose consumers add the bias, apply GELU and round once in registers before the store.
// One launch; C is written once and never read back.
// Pair gemm_bias_gelu: C = GELU_tanh(A·Bᵀ + bias) at M = 8192, N = 14336, K = 4096 (bf16, fp32
// accumulation). Kernel: gemm_bias_gelu_persistent_kernel.cu.
#include "gemm_bias_gelu_variants.hpp"

using Variant = aisp::ch10::GemmBiasGeluHandWritten<aisp::ch10::PersistentBiasGelu>;
AISP_VARIANT(Variant)
