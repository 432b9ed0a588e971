// Fault: a wrong answer (y = 2x + 1.001). Verification must refuse it: no speedup reported.
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct WrongAnswerVariant : CpuAffineProblem {
  void run(Context&) override {
    const float* in = x.as<float>();
    float* out = y.as<float>();
    for (std::size_t i = 0; i < kCount; ++i) out[i] = 2.0f * in[i] + 1.001f;
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::WrongAnswerVariant)
