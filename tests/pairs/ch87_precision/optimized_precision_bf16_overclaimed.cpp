// ch87:precision_bf16_overclaimed: the same bf16 rounding, declaring a bound of 1e-4 that its
// 1.7e-3 RMS error exceeds: precision_declared fails it.
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct PrecisionBf16Overclaimed : Bf16RoundedAffine {
  std::optional<LowerPrecision> lower_precision() const override {
    return bf16_declaration(1e-4);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::PrecisionBf16Overclaimed)
