// gemm_fp8_wgmma_block_scaled_128x256_rs_tma_store with another consumer schedule: the 256 columns
// as four n64 quarters (wgmma m64n64k32, A from the same registers) through two 32-register
// temporaries, so that while the consumer promotes one quarter its next quarter's wgmma are already
// queued on the tensor cores; the halves schedule has nothing of its own queued during a
// promotion. Shared-memory bytes are the same (B is read once per consumer, A from registers).
// Kernel: gemm_fp8_block_scaled_kernel.cu (mainloop_register_a_quarters).
#include "gemm_fp8_variants.cuh"

using Variant = aisp::ch19::GemmFp8BlockScaledWgmma<aisp::ch19::Fp8WgmmaRung{
    .tile_cols = 256, .tma_store = true, .a_quarters = true}>;
AISP_VARIANT(Variant)
