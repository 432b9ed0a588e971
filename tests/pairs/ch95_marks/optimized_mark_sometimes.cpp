// Fault: a second mark only on every other call. Every run() must reach the same marks, so the
// pair must fail saying which marks differed.
#include "marked_problem.hpp"

namespace aisp::test_pairs {
struct OptimizedMarkSometimes : MarkedProblem {
  int calls = 0;
  void run(Context& ctx) override {
    generate(ctx, std::chrono::microseconds(100), std::chrono::microseconds(100));
    if (++calls % 2 == 0) ctx.mark("second_token");
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::OptimizedMarkSometimes)
