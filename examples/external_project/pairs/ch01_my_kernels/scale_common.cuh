// y = a * x over 2^26 floats: the problem both variants of the example pair share.
#pragma once

#include <aisp/aisp.hpp>

namespace my_kernels {

struct ScaleProblem : aisp::Benchmark {
  static constexpr std::size_t kCount = std::size_t{1} << 26;
  static constexpr float kFactor = 3.0f;
  aisp::Tensor x, y;

  aisp::Signature signature() const override {
    return aisp::Signature().set("n", kCount).set("dtype", aisp::DType::f32);
  }
  void setup(aisp::Context& ctx) override {
    x = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    y = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(x);
  }
  std::vector<aisp::Tensor> outputs() const override { return {y}; }
  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * kCount * sizeof(float);
    w.flops = static_cast<double>(kCount);
    return w;
  }
};

}  // namespace my_kernels
