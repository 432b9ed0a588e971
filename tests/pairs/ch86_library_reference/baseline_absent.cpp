// Baseline of ch86:absent: 2 ms of sleep.
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyAffine<2000>;
AISP_VARIANT(Variant)
