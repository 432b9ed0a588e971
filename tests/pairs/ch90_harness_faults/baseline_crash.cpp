// Honest baseline for the 'crash' test pair.
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct Baseline_crash : CpuAffineBaseline {};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::Baseline_crash)
