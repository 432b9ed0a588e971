// Baseline of the rmsnorm_storage pair: RMSNorm (16384 × 8192) of a residual stream stored in fp32:
// reads 4 bytes and writes 2 (bf16 output) per element. Problem, kernel and the reasoning:
// rmsnorm_storage_variants.cuh, rmsnorm_storage_kernel.cu.
#include "rmsnorm_storage_variants.cuh"

using Variant = aisp::ch19::RmsNormStorage<aisp::DType::f32>;
AISP_VARIANT(Variant)
