// Fault: one NaN in the output. NaN never passes verification.
#include <limits>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct NanVariant : CpuAffineProblem {
  void run(Context&) override {
    affine(0, kCount);
    y.as<float>()[kCount / 2] = std::numeric_limits<float>::quiet_NaN();
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::NanVariant)
