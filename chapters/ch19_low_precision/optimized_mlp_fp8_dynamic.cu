// The MLP in FP8 e4m3 with dynamic per-tensor activation scales, unfused: weights quantized in
// setup; in the timed region x gets an amax kernel, a scale kernel and a cast kernel, the first
// GEMM runs in FP8, SwiGLU writes h in bf16, h gets its three quantization kernels, the second
// GEMM runs in FP8 (9 launches). What changed from the baseline: both GEMMs at the FP8 rate, paid
// for with the quantization passes over x and h.
#include "mlp_fp8_variants.cuh"

using Variant = aisp::ch19::MlpFp8<aisp::ch19::MlpScaling::dynamic_unfused>;
AISP_VARIANT(Variant)
