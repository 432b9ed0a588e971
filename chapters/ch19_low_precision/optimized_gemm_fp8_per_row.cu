// cuBLASLt FP8 e4m3 with one scale per row of A (per token) and per row of B (per output channel):
// cuBLASLt's OUTER_VEC_32F mode, which scales each output element by the product of its row's
// and column's factors in the epilogue. Quantized in setup. What changed from
// gemm_fp8_per_tensor: M + N factors instead of 2, so one large row no longer coarsens every
// other row's rounding.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8Cublaslt<aisp::common::Fp8ScaleGranularity::per_row,
                                            aisp::common::Fp8ScaleGranularity::per_row,
                                            aisp::ch19::QuantizeIn::setup>;
AISP_VARIANT(Variant)
