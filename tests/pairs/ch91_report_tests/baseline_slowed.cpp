// Baseline of the 'slowed' test pair: the affine loop, then 3 ms of sleep.
#include "slowed_problem.hpp"

namespace aisp::test_pairs {
struct BaselineSlowed : SlowedProblem {
  void run(Context&) override { affine_then_sleep(std::chrono::microseconds(3000)); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::BaselineSlowed)
