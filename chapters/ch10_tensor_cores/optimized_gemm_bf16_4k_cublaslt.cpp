// The library reference: cuBLASLt, with the algorithm its heuristic ranks first for this shape,
// the TN layout and bf16 in/out with fp32 accumulation (planned in setup, up to 32 MiB of
// workspace from the harness). Every hand-written rung of the ladder is judged against it.
// Pair gemm_bf16_4k: M = N = K = 4096 (A M×K, B N×K, C M×N, all row-major); the plan:
// chapters/common/cublaslt_matmul_plan.hpp.
#include "gemm_bf16_rungs.hpp"

using Variant = aisp::ch10::GemmBf16Cublaslt<aisp::ch10::Square4096>;
AISP_VARIANT(Variant)
