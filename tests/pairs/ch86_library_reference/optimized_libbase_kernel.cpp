// ch86:libbase_kernel: 1 ms of sleep, about 2x the baseline, which is the library reference.
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyAffine<1000>;
AISP_VARIANT(Variant)
