// Optimized variant of the 'slowed' test pair: the same loop, then 1 ms of sleep, plus
// AISP_TEST_SLOWDOWN_MS milliseconds when that variable is set: the regression
// test_report_commands.sh asks `bench compare-runs` to find.
#include <cstdlib>
#include <string>

#include "slowed_problem.hpp"

namespace aisp::test_pairs {
struct OptimizedSlowed : SlowedProblem {
  std::chrono::microseconds pause{1000};

  void setup(Context& ctx) override {
    SlowedProblem::setup(ctx);
    if (const char* slowdown = std::getenv("AISP_TEST_SLOWDOWN_MS")) {
      pause += std::chrono::microseconds(static_cast<long>(std::stod(slowdown) * 1000));
    }
  }
  void run(Context&) override { affine_then_sleep(pause); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::OptimizedSlowed)
