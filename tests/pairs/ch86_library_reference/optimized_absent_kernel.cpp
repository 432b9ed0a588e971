// ch86:absent_kernel: 1 ms of sleep; its pair's library reference cannot run here, so it is
// measured without a fraction, with the reason.
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyAffine<1000>;
AISP_VARIANT(Variant)
