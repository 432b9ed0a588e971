// The hand-written block-scaled FP8 GEMM on 128×192 tiles with the TMA-store epilogue and
// staggered consumers: what changed from gemm_fp8_wgmma_block_scaled_128x192_tma_store is one
// wait at the start: consumer warpgroup 1 issues its first wgmma only once consumer 0's first group
// has finished, so that from then on one consumer's group runs on the tensor cores while the other
// promotes, instead of both sharing them, finishing together and promoting together.
// Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_single, stagger_consumers).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .tma_store = true, .stagger_consumers = true}>;
AISP_VARIANT(Variant)
