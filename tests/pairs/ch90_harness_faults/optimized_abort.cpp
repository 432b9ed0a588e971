// Fault: abort() (a failed assert in real code).
#include <cstdlib>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct AbortingVariant : CpuAffineProblem {
  void run(Context&) override { std::abort(); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::AbortingVariant)
