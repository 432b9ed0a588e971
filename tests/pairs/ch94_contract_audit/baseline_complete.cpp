// Honest baseline of the 'complete' audit pair: y = 2x + 1, every contract hook declared.
#include "cpu_affine_problem.hpp"

namespace aisp::contract_audit {
struct Baseline_complete : test_pairs::CpuAffineBaseline {};
}  // namespace aisp::contract_audit
AISP_VARIANT(aisp::contract_audit::Baseline_complete)
