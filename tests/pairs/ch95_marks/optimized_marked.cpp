// Optimized variant of the 'marked' test pair: first token after 0.5 ms, 0.5 ms more to the end.
// AISP_TEST_FIRST_TOKEN_SHIFT_US (0-400) moves the first token later by that many microseconds
// and keeps the run's length: the slower first token test_marks.sh asks `bench compare-runs` to
// find while the whole run does not change.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "marked_problem.hpp"

namespace aisp::test_pairs {
struct OptimizedMarked : MarkedProblem {
  std::chrono::microseconds shift{0};

  void setup(Context& ctx) override {
    MarkedProblem::setup(ctx);
    if (const char* value = std::getenv("AISP_TEST_FIRST_TOKEN_SHIFT_US")) {
      shift = std::chrono::microseconds(std::clamp(std::stol(value), 0L, 400L));
    }
  }
  void run(Context& ctx) override {
    generate(ctx, std::chrono::microseconds(500) + shift, std::chrono::microseconds(500) - shift);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::OptimizedMarked)
