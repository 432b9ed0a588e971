// Rung 3: own grouped wgmma kernels with the permutation and the SwiGLU fused.
// What changed from cublasGemmGroupedBatchedEx: our kernels (moe_grouped_gemm_kernel.cuh) read
// every expert's size on the device (a persistent scheduler over all experts' tiles: no host
// round trip), gather the tokens' rows of x straight into the GEMM's shared memory (no gathered
// copy of x), and form h = silu(g)·u in the first GEMM's registers (g and u are never written:
// the tile holds 128 gate and the matching 128 up columns).
// Pair moe_layer_e64_zipf: 8192 tokens, hidden 4096, intermediate 2816, 64 experts top-8, Zipf
// routing (s = 1: the hottest expert gets 89% of the tokens); bf16 in and out
// (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeGroupedWgmma<aisp::ch17::LayerE64Top8Zipf>;
AISP_VARIANT(Variant)
