// The problem both elementwise_vectorized variants solve: y = a·x + b over 2^28 floats (1 GiB in,
// 1 GiB out) with scalar constants a and b, computed as fmaf(a, x, b) in both variants so that the
// outputs are bit-identical. 2 GiB of traffic is ~36× the H200's 60 MiB L2, so the kernel streams
// from and to HBM; at 2 FLOPs per 8 bytes it is memory-bound by a factor of ~100.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch06 {

class ElementwiseVectorizedProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 28;
  static constexpr float kScale = 1.5f;    // a
  static constexpr float kShift = -0.25f;  // b

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32);
    s.set("a", static_cast<double>(kScale)).set("b", static_cast<double>(kShift));
    return s;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(x_);
    // float4 accesses need 16-byte aligned bases (cudaMalloc gives 256).
    if (reinterpret_cast<std::uintptr_t>(x_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(y_.data()) % 16 != 0)
      throw std::invalid_argument("elementwise_vectorized: x and y must be 16-byte aligned");
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // x read once, y written once
    w.flops = 2.0 * static_cast<double>(kCount);                  // one FMA per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  const float* x() const { return x_.as<const float>(); }
  float* y() const { return y_.as<float>(); }

 private:
  aisp::Tensor x_, y_;
};

}  // namespace aisp::ch06
