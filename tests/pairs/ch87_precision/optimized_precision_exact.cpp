// ch87:precision_exact: the same f32 arithmetic, in reverse order. Its error against the float64
// reference is the baseline's (about 1e-8): precision_preserved passes.
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct PrecisionExact : PrecisionProblem {
  void run(Context&) override {
    const float* in = x.as<float>();
    float* out = y.as<float>();
    for (std::size_t i = kCount; i-- > 0;) out[i] = 2.0f * in[i] + 1.0f;
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::PrecisionExact)
