// Honest baseline for the 'scratch_hang' test pair.
#include "scratch_problem.hpp"

namespace aisp::test_pairs {
struct Baseline_scratch_hang : CpuAffineBaseline {};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::Baseline_scratch_hang)
