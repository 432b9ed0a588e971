// Baseline of the 'unseeded' cheat: honest loop, unseeded inputs (see unseeded_problem.hpp).
#include "unseeded_problem.hpp"

namespace aisp::integrity_cpu {
struct UnseededBaseline : UnseededAffineProblem {
  void run(Context&) override { affine(0, kCount); }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::UnseededBaseline)
