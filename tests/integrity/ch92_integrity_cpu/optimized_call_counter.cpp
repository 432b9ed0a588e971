// Cheat: counts its calls and does the whole work only for the first few, which covers every
// call verification makes of an instance; after that it computes every other element. Its timed
// samples are half the work. Caught by: timed_calls_checked (the timed calls are compared with
// the baseline's on the same inputs; the call after the samples is one of the cheap ones).
#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct CallCounter : test_pairs::CpuAffineProblem {
  int calls = 0;
  void run(Context&) override {
    // Verification calls an instance at most twice; the timed instance's warm-up is 3 calls.
    affine(0, kCount, ++calls <= 6 ? 1 : 2);
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::CallCounter)
