// Rung 6: a persistent tile scheduler.
// What changed from warp specialization: one block per SM loops over the tiles in a grouped
// (L2-friendly) order; the ring runs on across tiles, so epilogues overlap the next loads.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_persistent_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::PersistentRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
