// Rung 1: gather tokens per expert + per-expert cuBLAS GEMMs.
// What changed from the per-token loop: the loop runs over experts, not tokens. Each expert's
// tokens are collected and gathered into a contiguous block, so its weights are read once per
// expert and multiplied on the tensor cores (cublasGemmEx, bf16, fp32 accumulation), followed by
// a SwiGLU kernel, the down GEMM and a weighted scatter-add into an fp32 y. The host needs each
// expert's row count to size its GEMMs: one device-to-host copy and sync per call, then ~6
// launches per expert (the loop a framework runs: nonzero, index_select, linear, silu·mul,
// linear, index_add).
// Pair moe_layer: 8192 tokens, hidden 4096, intermediate 11008, 8 experts top-2, uniform routing;
// bf16 in and out (chapters/common/moe_layer_problem.hpp). The rungs: moe_layer_rungs.hpp.
#include "moe_layer_rungs.hpp"

using Variant = aisp::ch17::MoeExpertLoopCublas<aisp::ch17::LayerE8Top2>;
AISP_VARIANT(Variant)
