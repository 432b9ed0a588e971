// Rung 2: mma.sync + ldmatrix + swizzled shared memory + a 3-stage cp.async pipeline.
// What changed from WMMA: explicit m16n8k16 MMAs fed by ldmatrix from XOR-swizzled 128-byte
// rows, loads that bypass registers (cp.async) three k-steps deep, a 128×256 block tile.
// Pair gemm_bf16_4k: C = A·Bᵀ at M = N = K = 4096, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_mma_sync_kernel.cu; the 8192³ pair (gemm_bf16) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::MmaSyncRung, aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
