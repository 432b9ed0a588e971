// Baseline of ch88:unavailable: an honest CPU pair's baseline (y = 2x + 1).
#include "cpu_affine_problem.hpp"

namespace aisp::test_pairs {
struct UnavailableBaseline : CpuAffineBaseline {};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::UnavailableBaseline)
