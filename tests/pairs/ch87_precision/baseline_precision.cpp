// Baseline of ch87:precision: y = 2x + 1 in f32, with the float64 reference of the problem.
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct PrecisionBaseline : PrecisionProblem {
  void run(Context&) override { affine(0, kCount); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::PrecisionBaseline)
