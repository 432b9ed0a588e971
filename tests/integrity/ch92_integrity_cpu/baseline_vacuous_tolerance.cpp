// Honest baseline for the 'vacuous_tolerance' cheat.
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_vacuous_tolerance : test_pairs::CpuAffineBaseline {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_vacuous_tolerance)
