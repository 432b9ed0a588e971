// cuBLASLt FP8 e4m3 with one scale per tensor, A and B quantized INSIDE the timed region on every
// call (dynamic scaling: for each operand an amax kernel, a scale kernel and a cast kernel, then
// the GEMM reads the scales through device pointers). What changed from gemm_fp8_per_tensor: the
// quantization is paid for: reading 2 × 128 MiB of bf16 twice and writing 2 × 64 MiB of e4m3.
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8Cublaslt<aisp::common::Fp8ScaleGranularity::per_tensor,
                                            aisp::common::Fp8ScaleGranularity::per_tensor,
                                            aisp::ch19::QuantizeIn::run>;
AISP_VARIANT(Variant)
