// Blackwell: the gemm_fp8 problem in MXFP8 through cuBLASLt (e4m3 elements with a power-of-two
// UE8M0 factor per 32 k, VEC32_UE8M0), quantized in setup. Needs compute capability 10.0 (the
// block-scaled tcgen05 MMA): skipped with that reason on Hopper, where gemm_fp8_block_1x128 is
// the closest lesson. Not yet run: no Blackwell GPU here.
#include "gemm_fp8_blackwell_variants.cuh"

using Variant = aisp::ch19::GemmBlockScaledCublaslt<aisp::ch19::BlockScaledFormat::mxfp8>;
AISP_VARIANT(Variant)
