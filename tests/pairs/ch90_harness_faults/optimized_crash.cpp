// Fault: a segmentation fault inside the timed region. The worker dies; the orchestrator must
// record a crash naming the signal and go on with the next pair.
#include <csignal>

#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct SegfaultingVariant : CpuAffineProblem {
  void run(Context&) override { std::raise(SIGSEGV); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::SegfaultingVariant)
