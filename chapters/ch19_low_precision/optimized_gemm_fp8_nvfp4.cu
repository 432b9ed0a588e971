// Blackwell: the gemm_fp8 problem in NVFP4 through cuBLASLt (e2m1 elements, a UE4M3 factor per
// 16 k, VEC16_UE4M3, and an fp32 factor per tensor in alpha), quantized in setup. Needs compute
// capability 10.0: skipped with that reason on Hopper. Not yet run: no Blackwell GPU here.
#include "gemm_fp8_blackwell_variants.cuh"

using Variant = aisp::ch19::GemmBlockScaledCublaslt<aisp::ch19::BlockScaledFormat::nvfp4>;
AISP_VARIANT(Variant)
