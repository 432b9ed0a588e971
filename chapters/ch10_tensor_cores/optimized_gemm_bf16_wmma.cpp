// Rung 1: WMMA — the same tiles and staging as the baseline, the math on the tensor cores.
// What changed from the baseline: nvcuda::wmma 16×16×16 bf16 fragments and fp32 accumulator
// fragments instead of fp32 FMAs; the operands stay bf16 in shared memory.
// Pair gemm_bf16: C = A·Bᵀ at M = N = K = 8192, bf16 in and out, fp32 accumulation
// (A M×K, B N×K, C M×N, all row-major). The kernel and its full description:
// gemm_bf16_wmma_kernel.cu; the 4096³ pair (gemm_bf16_4k) runs the same kernel.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Rung<aisp::ch10::WmmaRung, aisp::ch10::Square8192>;
AISP_VARIANT(Variant)
