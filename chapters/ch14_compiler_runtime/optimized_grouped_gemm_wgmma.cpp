// One persistent grouped wgmma kernel for all 64 experts: one block per SM walks every expert's
// 128×256 tiles in one sequence, found by a device-side scheduler from the row offsets in device
// memory — no launch per expert, no wave tail per expert, no host round trip for the sizes.
// The kernel is chapters/common/grouped_gemm_bf16.cu (chapter 10's persistent warp-specialized
// GEMM plus the scheduler and a row-masked epilogue), shared with the MoE chapters.
// Pair grouped_gemm: 64 experts, Y_g = X_g·W_gᵀ, N = 2048, K = 7168, 32768 routed rows, bf16 in
// and out, fp32 accumulation.
#include "grouped_gemm_variants.hpp"

using Variant = aisp::ch14::GroupedGemmWgmma;
AISP_VARIANT(Variant)
