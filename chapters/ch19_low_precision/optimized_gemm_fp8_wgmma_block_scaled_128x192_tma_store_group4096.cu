// gemm_fp8_wgmma_block_scaled_128x192_tma_store with the tiles walked in groups of 4096 rows of A
// instead of 1024: what changes is DRAM traffic. Within a group the persistent blocks take tiles
// column by column, so each group sweeps all of B (64 MiB of e4m3 at 8192³) once while the
// group's rows of A (32 MiB) are re-read from L2: B comes from DRAM about M / group_rows times,
// 8 (512 MiB) with 1024-row groups, 2 with 4096-row groups, provided the group's A stays in the
// 60 MiB L2. The kernel runs into the H200's power cap, where fewer DRAM bytes is less energy per
// GEMM. Kernel: gemm_fp8_block_scaled_kernel.cu (TileWalk, grouped_tile).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .tma_store = true, .group_rows = 4096}>;
AISP_VARIANT(Variant)
