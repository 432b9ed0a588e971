// Baseline: a register-blocked SIMT GEMM (bf16 loads, fp32 FMAs, no tensor cores).
// The starting point of the ladder: chapter 7's 128×128 register-blocked tile, 8×8 outputs per
// thread, carried over to bf16 inputs (widened to fp32 in shared memory) and bf16 output.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_simt_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::SimtRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
