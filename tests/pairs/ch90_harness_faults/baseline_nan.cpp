// Honest baseline for the 'nan' test pair.
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct Baseline_nan : CpuAffineBaseline {};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::Baseline_nan)
