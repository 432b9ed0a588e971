// Test-only CPU problem shared by the CPU test pairs: y = 2x + 1 over Count floats in host memory,
// with its float64 reference. Each variant file overrides run() with an honest implementation or
// a specific fault (ch90, ch92), or adds what its test needs around the same arithmetic (a sleep:
// ch91; marks: ch95), so the harness's containment, verification and reports can be tested on a
// machine without a GPU.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::test_pairs {

template <std::size_t Count>
struct CpuAffine : Benchmark {
  static constexpr std::size_t kCount = Count;
  Tensor x, y;

  Signature signature() const override {
    return Signature().set("n", kCount).set("dtype", DType::f32);
  }
  Requirements requirements() const override { return Requirements::cpu(); }
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, kCount, Role::input, Memory::host);
    y = ctx.alloc("y", DType::f32, kCount, Role::output, Memory::host);
    ctx.fill_uniform(x, -1.0, 1.0);
  }
  std::vector<Tensor> outputs() const override { return {y}; }
  ReferenceFunction reference() const override {
    return [](const HostInputs& in, std::size_t, std::size_t i) {
      return 2.0 * static_cast<double>(in.f32("x")[i]) + 1.0;
    };
  }
  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * kCount * sizeof(float);
    w.flops = 2.0 * kCount;
    w.memory_ceiling = Ceiling::host_memory_bandwidth;
    w.compute_ceiling = Ceiling::none;
    return w;
  }
  TimingMode timing_mode() const override { return TimingMode::direct; }

 protected:
  void affine(std::size_t begin, std::size_t end, std::size_t step = 1) {
    const float* in = x.template as<float>();
    float* out = y.template as<float>();
    for (std::size_t i = begin; i < end; i += step)
      out[i] = 2.0f * in[i] + 1.0f;
  }
};

// The fault pairs' problem (ch90, ch92): 2^20 floats.
using CpuAffineProblem = CpuAffine<std::size_t{1} << 20>;

// The honest baseline every fault pair compares against.
struct CpuAffineBaseline : CpuAffineProblem {
  void run(Context&) override { affine(0, kCount); }
};

}  // namespace aisp::test_pairs
