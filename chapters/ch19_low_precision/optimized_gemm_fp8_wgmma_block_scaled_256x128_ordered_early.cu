// The hand-written block-scaled FP8 GEMM on 256×128 tiles, consumers in turns handed over early:
// what changed from gemm_fp8_wgmma_block_scaled_256x128_ordered is that a consumer passes the turn
// once the first half of its wgmma group (two of four m64n128k32, committed separately) has
// completed, so the other consumer's group is issued while the second half still runs and the
// hand-over's latency is hidden. Kernel: gemm_fp8_block_scaled_kernel.cu (ConsumerOrder::early).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<1, 256, aisp::ch19::ConsumerOrder::early>;
AISP_VARIANT(Variant)
