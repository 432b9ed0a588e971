// Baseline of ch86:sleep: the affine map, then 3 ms of sleep.
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyAffine<3000>;
AISP_VARIANT(Variant)
