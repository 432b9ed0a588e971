// The hand-written block-scaled FP8 GEMM on 128×192 tiles with the TMA-store epilogue and a lean
// main loop: what changed from gemm_fp8_wgmma_block_scaled_128x192_tma_store is the work a
// consumer does per k block outside its wgmma and promotion. A clock64 timeline of that rung on
// the H200 put it at ~430 cycles per k block (the slot's descriptors, barrier and factor addresses
// rebuilt from generic pointers every block, a branch between two copies of the promotion), so
// one consumer's overhead and promotion outlasted the other consumer's 384-cycle wgmma group and
// the tensor cores waited. Here the k loop is unrolled by the ring's depth (4) so each slot's
// addresses are slot 0's plus immediates, computed once per kernel, and the promotion has no
// branch. Needs K/128 a multiple of 4 (8192: 64). Kernel: gemm_fp8_block_scaled_kernel.cu
// (mainloop_lean).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 192, .tma_store = true, .lean = true}>;
AISP_VARIANT(Variant)
