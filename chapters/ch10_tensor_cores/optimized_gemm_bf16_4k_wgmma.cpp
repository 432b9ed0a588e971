// Rung 3: TMA tiles + wgmma, one consumer warpgroup (Hopper).
// What changed from mma.sync: one warpgroup issues m64n128k16 wgmma straight from shared memory,
// and the tiles arrive by TMA (one thread, one mbarrier), one stage deep.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_wgmma_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::WgmmaRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
