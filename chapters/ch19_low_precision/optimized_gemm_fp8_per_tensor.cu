// cuBLASLt FP8 e4m3 with one scale per tensor (SCALAR_32F), A and B quantized in setup (amax,
// scale, cast: untimed, as for weights or activations stored in FP8). The timed region is the
// FP8 GEMM alone: the rate the tensor cores give FP8, and the pair's library reference (every
// other variant also reports its fraction of this one).
// What changed from the baseline: e4m3 operands (1 byte, 3 mantissa bits) instead of bf16, twice
// the tensor-core rate; error: ~3.6% relative RMS against the float64 reference (see the problem).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8Cublaslt<aisp::common::Fp8ScaleGranularity::per_tensor,
                                            aisp::common::Fp8ScaleGranularity::per_tensor,
                                            aisp::ch19::QuantizeIn::setup,
                                            /*library_reference=*/true>;
AISP_VARIANT(Variant)
