// The hand-written block-scaled FP8 GEMM on 128×192 tiles with the TMA-store epilogue and a lean
// main loop: what changed from gemm_fp8_wgmma_block_scaled_128x192_tma_store is the work a
// consumer does per k block outside its wgmma and promotion. A clock64 timeline of that rung on
// the H200 put it at ~430 cycles per k block (the slot's descriptors, barrier and factor addresses
// rebuilt from generic pointers every block, the B factors loaded just before use), so one
// consumer's overhead and promotion outlasted the other consumer's 384-cycle wgmma group and the
// tensor cores waited. Here the ring's addresses are computed once per kernel and the next block's
// B factors load under the wgmma. Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_lean).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .tma_store = true, .lean = true}>;
AISP_VARIANT(Variant)
