// gemm_fp8_wgmma_block_scaled_128x256_rs_quarters_tma_store with C stored from registers: one
// more ring slot (4 instead of 3) against the epilogue's pause of the tensor cores, the trade
// gemm_fp8_wgmma_block_scaled_128x256_rs makes against _rs_tma_store with the halves schedule.
// Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_register_a_quarters).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{.tile_cols = 256,
                                                                             .a_quarters = true}>;
AISP_VARIANT(Variant)
