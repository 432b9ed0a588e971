// Optimized variant of the 'marked' test pair: first token after 0.5 ms, 0.5 ms more to the end.
#include "marked_problem.hpp"

namespace aisp::test_pairs {
struct OptimizedMarked : MarkedProblem {
  void run(Context& ctx) override {
    generate(ctx, std::chrono::microseconds(500), std::chrono::microseconds(500));
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::OptimizedMarked)
