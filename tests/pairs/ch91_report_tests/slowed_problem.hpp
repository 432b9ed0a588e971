// Test-only CPU pair for `bench compare-runs` (tests/cli/test_report_commands.sh): y = 2x + 1
// over 4096 floats (tests/support/cpu_affine_problem.hpp), then a sleep that dominates the time.
// A sleep's length barely depends on how busy the machine is, so two runs of this pair agree
// closely even on a loaded 2-core CI machine, and a slowdown made to order
// (AISP_TEST_SLOWDOWN_MS, read by the optimized variant) stands out as a regression.
#pragma once

#include <chrono>
#include <thread>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {

struct SlowedProblem : CpuAffine<4096> {
 protected:
  void affine_then_sleep(std::chrono::microseconds pause) {
    affine(0, kCount);
    std::this_thread::sleep_for(pause);
  }
};

}  // namespace aisp::test_pairs
