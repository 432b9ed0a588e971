// Cheat: computes in place in the input buffer, then copies: the input is destroyed for the next
// call. Caught by: inputs_unchanged (hashes before and after run()).
#include <cstring>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct MutatesInput : test_pairs::CpuAffineProblem {
  void run(Context&) override {
    float* in = x.as<float>();
    for (std::size_t i = 0; i < kCount; ++i) in[i] = 2.0f * in[i] + 1.0f;
    std::memcpy(y.data(), in, kCount * sizeof(float));
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::MutatesInput)
