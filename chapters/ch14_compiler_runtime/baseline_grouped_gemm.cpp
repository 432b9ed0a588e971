// Baseline: a loop of per-expert GEMMs, one cublasGemmEx launch each (63: the empty expert is
// skipped), as a framework's MoE layer without a grouped kernel runs them. Every launch is a GEMM
// of M_g × 2048 × 7168 with M_g between 4 and 1611: most are too small to fill 132 SMs with large
// tiles, each ends in its own wave tail, and the sizes come from the host.
// Pair grouped_gemm: 64 experts, Y_g = X_g·W_gᵀ, N = 2048, K = 7168, 32768 routed rows, bf16 in
// and out, fp32 accumulation. Problem: grouped_gemm_problem.hpp.
#include "grouped_gemm_variants.hpp"

using Variant = aisp::ch14::GroupedGemmCublasLoop;
AISP_VARIANT(Variant)
