// Rung 5: a producer warpgroup and two consumer warpgroups (setmaxnreg).
// What changed from the ring: fixed roles — one TMA thread in a warpgroup shrunk to 40 registers,
// two consumers grown to 232, each m64n256k16 on its half of a 128×256 tile, 4 slots.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_warp_specialized_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::WarpSpecializedRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
