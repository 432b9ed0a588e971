// Cheat: verification poisons the outputs with NaN before each of its calls; timed calls find
// last call's answer there instead. This variant does the whole work only when its output holds
// the poison, and every other element otherwise. Caught by: timed_calls_checked.
#include <cmath>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct PoisonDetect : test_pairs::CpuAffineProblem {
  void run(Context&) override { affine(0, kCount, std::isnan(y.as<float>()[0]) ? 1 : 2); }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::PoisonDetect)
