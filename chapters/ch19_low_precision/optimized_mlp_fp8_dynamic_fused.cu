// The MLP in FP8 with dynamic per-tensor activation scales, fused: what changed from
// mlp_fp8_dynamic is that each activation's amax, scale and cast run as ONE cooperative kernel
// (a grid-wide barrier between the amax pass and the cast pass), and h's kernel computes the
// SwiGLU itself from the first GEMM's output instead of reading a bf16 h written by another
// kernel (4 launches instead of 9; gate_up read twice instead of h written once and read twice).
#include "mlp_fp8_variants.cuh"

using Variant = aisp::ch19::MlpFp8<aisp::ch19::MlpScaling::dynamic_fused>;
AISP_VARIANT(Variant)
