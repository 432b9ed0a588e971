// Optimized variant of the 'incomplete' audit pair: honest work, incomplete contract.
#include "incomplete_problem.hpp"

namespace aisp::contract_audit {
struct Incomplete : IncompleteProblem {
  void run(Context&) override { affine(0, kCount); }
};
}  // namespace aisp::contract_audit
AISP_VARIANT(aisp::contract_audit::Incomplete)
