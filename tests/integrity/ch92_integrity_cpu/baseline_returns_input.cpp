// Honest baseline for the 'returns_input' cheat.
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_returns_input : test_pairs::CpuAffineBaseline {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_returns_input)
