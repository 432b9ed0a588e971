// ch87:noref_bf16: declares lower precision in a pair whose baseline gives no float64
// reference(): nothing to hold it to. bench audit fails lower_precision; verification fails
// precision_declared.
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct NoReferenceBf16 : Bf16RoundedAffine {
  ReferenceFunction reference() const override { return {}; }
  std::optional<LowerPrecision> lower_precision() const override {
    return bf16_declaration(5e-3);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::NoReferenceBf16)
