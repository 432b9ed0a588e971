// The same loop, two elements per iteration: an honest variant, so the pair is complete.
#include "cpu_affine_problem.hpp"

namespace aisp::contract_audit {
struct UnrolledAffine : test_pairs::CpuAffineProblem {
  void run(Context&) override {
    affine(0, kCount, 2);
    affine(1, kCount, 2);
  }
};
}  // namespace aisp::contract_audit
AISP_VARIANT(aisp::contract_audit::UnrolledAffine)
