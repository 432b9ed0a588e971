// Fault: partial work, every other element left unwritten. The poisoned output exposes it.
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct HalfWrittenVariant : CpuAffineProblem {
  void run(Context&) override { affine(0, kCount, 2); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::HalfWrittenVariant)
