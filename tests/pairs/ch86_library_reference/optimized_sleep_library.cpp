// The library reference of ch86:sleep ("TestLib"): 1 ms of sleep. Its own target reports its
// speedup over the baseline as usual (about 3x).
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyLibrary<1000>;
AISP_VARIANT(Variant)
