// Honest baseline for the 'precision_downgrade' cheat.
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_precision_downgrade : test_pairs::CpuAffineBaseline {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_precision_downgrade)
