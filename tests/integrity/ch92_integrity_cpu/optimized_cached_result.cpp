// Cheat: the answer is computed in setup (untimed) and run() only copies it out. It is right
// for the inputs setup saw. Caught by: fresh_inputs_recomputed (new inputs written in place).
#include <cstring>
#include <vector>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct CachedResult : test_pairs::CpuAffineProblem {
  std::vector<float> cache;
  void setup(Context& ctx) override {
    test_pairs::CpuAffineProblem::setup(ctx);
    cache.resize(kCount);
    for (std::size_t i = 0; i < kCount; ++i) cache[i] = 2.0f * x.as<float>()[i] + 1.0f;
  }
  void run(Context&) override { std::memcpy(y.data(), cache.data(), kCount * sizeof(float)); }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::CachedResult)
