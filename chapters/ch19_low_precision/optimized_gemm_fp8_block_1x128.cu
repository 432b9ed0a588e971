// cuBLASLt FP8 e4m3 with 1x128 block scales on both operands (VEC128_32F: one factor per row per
// 128 k). Quantized in setup. What changed from gemm_fp8_per_row: the factors change along k, so
// the GEMM can no longer scale only in its epilogue: the kernel scales each 128-k partial sum
// before adding it into the fp32 accumulator (the cost this variant measures).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8Cublaslt<aisp::common::Fp8ScaleGranularity::block_1x128,
                                            aisp::common::Fp8ScaleGranularity::block_1x128,
                                            aisp::ch19::QuantizeIn::setup>;
AISP_VARIANT(Variant)
