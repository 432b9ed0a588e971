// The affine problem with its input filled with a constant instead of from ctx.seed(): a pair
// built on it computes the same answer for every seed, so verification cannot tell a computed
// result from a cached one. Both variants share the fault.
#pragma once

#include "cpu_affine_problem.hpp"

namespace aisp::integrity_cpu {

struct UnseededAffineProblem : test_pairs::CpuAffineProblem {
  void setup(Context& ctx) override {
    test_pairs::CpuAffineProblem::setup(ctx);
    float* in = x.as<float>();
    for (std::size_t i = 0; i < kCount; ++i) in[i] = 0.25f + 1e-7f * static_cast<float>(i % 97);
  }
};

}  // namespace aisp::integrity_cpu
