// Cheat: declares its input as scratch (filled in setup all the same, under the input's name, so
// it holds the same values) and computes in place in it, then copies to the output. Inputs are
// hashed before and after run(); scratch is not, so the write went unseen. Caught by:
// input_roles_equal ('x' is an input in the baseline and scratch here).
#include <cstring>

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {
struct ScratchInput : test_pairs::CpuAffineProblem {
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, kCount, Role::scratch, Memory::host);
    y = ctx.alloc("y", DType::f32, kCount, Role::output, Memory::host);
    ctx.fill_uniform(x, -1.0, 1.0);
  }
  void run(Context&) override {
    float* in = x.as<float>();
    for (std::size_t i = 0; i < kCount; ++i)
      in[i] = 2.0f * in[i] + 1.0f;  // in place
    std::memcpy(y.data(), in, kCount * sizeof(float));
    for (std::size_t i = 0; i < kCount; ++i)
      in[i] = (in[i] - 1.0f) * 0.5f;  // roughly undone
  }
};
}  // namespace aisp::integrity_cpu
AISP_VARIANT(aisp::integrity_cpu::ScratchInput)
