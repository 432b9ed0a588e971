// Rung 4: a multi-stage TMA ring with full/empty mbarriers.
// What changed from the wgmma rung: two slots per block, the next k-step loading while one wgmma
// group runs and the next is queued;
// mbarrier phases (full/empty per slot) replace the block barrier.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_wgmma_ring_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::WgmmaRingRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
