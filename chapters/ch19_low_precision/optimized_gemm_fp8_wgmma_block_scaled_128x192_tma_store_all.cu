// The hand-written block-scaled FP8 GEMM on 128×192 tiles with every option of this ladder at
// once: the TMA-store epilogue, 2-block clusters multicasting B, staggered consumers and the next
// k block prefetched above the promotion (each measured alone in the _tma_store_* rungs).
// Kernel: gemm_fp8_block_scaled_kernel.cu.
#include "gemm_fp8_variants.cuh"

using Variant =
    aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 192,
                                                                 .cluster = 2,
                                                                 .tma_store = true,
                                                                 .stagger_consumers = true,
                                                                 .prefetch_next_block = true}>;
AISP_VARIANT(Variant)
