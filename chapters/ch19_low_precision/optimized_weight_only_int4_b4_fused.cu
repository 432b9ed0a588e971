// The weight-only INT4 layer at batch 4 with the dequantization fused into the GEMV: what
// changed from the baseline is that the bf16 weights never exist in memory. Each INT4 byte is
// read once, turned into bf16 in registers and multiplied on the tensor cores (mma.sync, the batch
// as the MMA's N), each 128-k group's sum scaled in fp32 (weight_only_gemv_kernel.cu). The bytes
// are read from w_packed, the same integers in a tile-contiguous order derived in setup.
#include "weight_only_variants.cuh"

using Variant = aisp::ch19::WeightOnlyFused<4, 4>;
AISP_VARIANT(Variant)
