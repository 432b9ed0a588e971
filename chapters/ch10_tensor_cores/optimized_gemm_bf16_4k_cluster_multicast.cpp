// Rung 7: 2×1 thread-block clusters with TMA multicast.
// What changed from the persistent rung: two blocks stacked along M share each B tile — each
// loads half and multicasts it to both — so B crosses L2 -> SM once per pair.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_cluster_multicast_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::ClusterMulticastRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
