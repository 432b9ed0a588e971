// A variant of ch86:sleep that is not the library: 2 ms of sleep, so about 50% of TestLib (timed
// as a third participant of this target's samples) and about 1.5x over the baseline.
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyAffine<2000>;
AISP_VARIANT(Variant)
