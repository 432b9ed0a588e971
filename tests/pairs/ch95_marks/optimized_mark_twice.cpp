// Fault: the same mark twice in one run(). The pair must fail naming the mark, not report a time.
#include "marked_problem.hpp"

namespace aisp::test_pairs {
struct OptimizedMarkTwice : MarkedProblem {
  void run(Context& ctx) override {
    generate(ctx, std::chrono::microseconds(100), std::chrono::microseconds(100));
    ctx.mark("first_token");
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::OptimizedMarkTwice)
