// Baseline of the 'marked' test pair: first token after 2 ms, 1 ms more to the end.
#include "marked_problem.hpp"

namespace aisp::test_pairs {
struct BaselineMarked : MarkedProblem {
  void run(Context& ctx) override {
    generate(ctx, std::chrono::microseconds(2000), std::chrono::microseconds(1000));
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::BaselineMarked)
