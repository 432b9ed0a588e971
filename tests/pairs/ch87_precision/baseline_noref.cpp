// Baseline of ch87:noref: y = 2x + 1 in f32 without a float64 reference().
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct NoReferenceBaseline : PrecisionProblem {
  void run(Context&) override { affine(0, kCount); }
  ReferenceFunction reference() const override { return {}; }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::NoReferenceBaseline)
