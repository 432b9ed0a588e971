// Cheat: writes zeros and declares a tolerance wide enough for zeros to pass, with a
// justification that sounds fine. Caught by: tolerance_not_vacuous (zeros would pass).
#include <cstring>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct VacuousTolerance : test_pairs::CpuAffineProblem {
  void run(Context&) override { std::memset(y.data(), 0, kCount * sizeof(float)); }
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{0.0, 10.0, "low-precision fast path; errors up to 10 are acceptable"};
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::VacuousTolerance)
