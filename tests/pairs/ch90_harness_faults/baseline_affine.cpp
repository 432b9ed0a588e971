// Honest baseline for the 'affine' test pair.
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct Baseline_affine : CpuAffineBaseline {};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::Baseline_affine)
