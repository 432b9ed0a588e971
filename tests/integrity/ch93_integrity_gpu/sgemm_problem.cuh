// Test-only GPU problem for the precision-downgrade cheat: C = A·B in fp32 through cuBLAS,
// 1024³, column-major, inputs uniform in [-1, 1), with a float64 reference.
#pragma once

#include <cublas_v2.h>

#include <aisp/aisp.hpp>

namespace aisp::integrity_gpu {

struct SgemmProblem : Benchmark {
  static constexpr int kN = 1024;
  Tensor a, b, c;

  Signature signature() const override {
    return Signature().set("n", kN).set("dtype", DType::f32).set("math", "fp32");
  }
  void setup(Context& ctx) override {
    const std::size_t elements = static_cast<std::size_t>(kN) * kN;
    a = ctx.alloc("a", DType::f32, elements, Role::input);
    b = ctx.alloc("b", DType::f32, elements, Role::input);
    c = ctx.alloc("c", DType::f32, elements, Role::output);
    ctx.fill_uniform(a);
    ctx.fill_uniform(b);
    ctx.cublas();  // handle created in setup, not in the timed run
  }
  std::vector<Tensor> outputs() const override { return {c}; }
  Workload workload() const override {
    Workload w;
    w.flops = 2.0 * kN * kN * static_cast<double>(kN);
    w.bytes = 3.0 * kN * kN * sizeof(float);
    return w;
  }
  ReferenceFunction reference() const override {
    return [](const HostInputs& in, std::size_t, std::size_t index) {
      const auto av = in.f32("a");
      const auto bv = in.f32("b");
      const std::size_t i = index % kN, j = index / kN;
      double sum = 0;
      for (std::size_t k = 0; k < kN; ++k)
        sum += static_cast<double>(av[k * kN + i]) * static_cast<double>(bv[j * kN + k]);
      return sum;
    };
  }
  // Honest tolerance for two fp32 summation orders of a 1024-term dot product (see ch01's
  // gemm_batched for the reasoning).
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{1e-5, 4e-4, "1024-term fp32 dot products summed in another order"};
  }
  TimingMode timing_mode() const override { return TimingMode::direct; }
};

}  // namespace aisp::integrity_gpu
