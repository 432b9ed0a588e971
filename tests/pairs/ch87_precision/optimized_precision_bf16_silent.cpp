// ch87:precision_bf16_silent: the same bf16 rounding without declaring it. Its justified
// tolerance lets it pass within_tolerance, but its error is 100x the baseline's:
// precision_preserved fails it.
#include "bf16_rounding.hpp"

namespace aisp::test_pairs {
struct PrecisionBf16Silent : Bf16RoundedAffine {};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::PrecisionBf16Silent)
