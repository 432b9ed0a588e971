// ch87:precision_bf16: rounds y to bf16 and declares it, with a bound of 5e-3 (about 3x the
// 1.7e-3 RMS it reaches): precision_declared passes and every report marks it lower precision.
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct PrecisionBf16 : Bf16RoundedAffine {
  std::optional<LowerPrecision> lower_precision() const override {
    return bf16_declaration(5e-3);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::PrecisionBf16)
