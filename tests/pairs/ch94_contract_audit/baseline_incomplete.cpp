// Baseline of the 'incomplete' audit pair (incomplete_problem.hpp says what is missing).
#include "incomplete_problem.hpp"

namespace aisp::contract_audit {
struct Baseline_incomplete : IncompleteProblem {
  void run(Context&) override { affine(0, kCount); }
};
}  // namespace aisp::contract_audit
AISP_VARIANT(aisp::contract_audit::Baseline_incomplete)
