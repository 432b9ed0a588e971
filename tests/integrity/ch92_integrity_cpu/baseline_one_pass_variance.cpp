// Honest baseline for the 'one_pass_variance' cheat: the two-pass variance.
#include "row_variance_problem.hpp"

namespace aisp::integrity_cpu {
struct Baseline_one_pass_variance : TwoPassVariance {};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::Baseline_one_pass_variance)
