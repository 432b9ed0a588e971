// Baseline of ch86:libbase, and the pair's library reference ("TestLib"): 2 ms of sleep. Every
// target's fraction of TestLib is then its speedup, from the same samples.
#include "sleep_problem.hpp"

using Variant = aisp::test_pairs::SleepyLibrary<2000>;
AISP_VARIANT(Variant)
