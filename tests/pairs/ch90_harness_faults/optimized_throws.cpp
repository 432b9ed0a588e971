// Fault: setup throws (a missing file, a bad size). The pair fails with the message.
#include <stdexcept>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct ThrowingVariant : CpuAffineProblem {
  void setup(Context&) override {
    throw std::runtime_error("test fault: setup could not prepare its inputs");
  }
  void run(Context&) override {}
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::ThrowingVariant)
