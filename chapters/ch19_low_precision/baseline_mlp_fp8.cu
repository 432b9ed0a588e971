// Baseline of the mlp_fp8 pair: the SwiGLU MLP (8192 tokens, d 4096, f 14336) in BF16:
// cuBLASLt GEMM x·W13ᵀ -> SwiGLU kernel -> cuBLASLt GEMM h·W2ᵀ, fp32 accumulation.
// Problem: mlp_fp8_problem.cuh; variants: mlp_fp8_variants.cuh.
#include "mlp_fp8_variants.cuh"

using Variant = aisp::ch19::MlpBf16;
AISP_VARIANT(Variant)
