// Cheat: inputs that ignore the seed (unseeded_problem.hpp). The computation is honest, but a
// pair whose outputs never change cannot prove it does not return a stored answer.
// Caught by: seed_changes_output.
#include "unseeded_problem.hpp"

namespace aisp::integrity_cpu {
struct UnseededOptimized : UnseededAffineProblem {
  void run(Context&) override { affine(0, kCount); }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::UnseededOptimized)
