// Baseline of the 'mark_sometimes' fault pair: honest, one mark per run.
#include "marked_problem.hpp"

namespace aisp::test_pairs {
struct BaselineMarkSometimes : MarkedProblem {
  void run(Context& ctx) override {
    generate(ctx, std::chrono::microseconds(200), std::chrono::microseconds(200));
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::BaselineMarkSometimes)
