// The hand-written block-scaled FP8 GEMM on 256×128 tiles, consumers in turns: what
// changed from gemm_fp8_wgmma_block_scaled_256x128 is that the two consumer warpgroups take
// strict turns on the tensor cores, one wgmma group (a 64-row fragment of one 128-k block) at a
// time, each promoting while the other's group runs, instead of both groups running and both
// promotions happening together. Kernel: gemm_fp8_block_scaled_kernel.cu (ConsumerOrder::strict).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<1, 256, aisp::ch19::ConsumerOrder::strict>;
AISP_VARIANT(Variant)
