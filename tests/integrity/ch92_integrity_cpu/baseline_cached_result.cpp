// Honest baseline for the 'cached_result' cheat.
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_cached_result : test_pairs::CpuAffineBaseline {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_cached_result)
