// Test-only CPU pair for `bench compare-runs` (tests/cli/test_report_commands.sh): y = 2x + 1
// over 4096 floats, then a sleep that dominates the time. A sleep's length barely depends on how
// busy the machine is, so two runs of this pair agree closely even on a loaded 2-core CI machine,
// and a slowdown made to order (AISP_TEST_SLOWDOWN_MS, read by the optimized variant) stands out
// as a regression.
#pragma once

#include <chrono>
#include <thread>

#include <aisp/aisp.hpp>

namespace aisp::test_pairs {

struct SlowedProblem : Benchmark {
  static constexpr std::size_t kCount = 4096;
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
  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * kCount * sizeof(float);
    w.memory_ceiling = Ceiling::host_memory_bandwidth;
    w.compute_ceiling = Ceiling::none;
    return w;
  }
  TimingMode timing_mode() const override { return TimingMode::direct; }

 protected:
  void affine_then_sleep(std::chrono::microseconds pause) {
    const float* in = x.as<float>();
    float* out = y.as<float>();
    for (std::size_t i = 0; i < kCount; ++i)
      out[i] = 2.0f * in[i] + 1.0f;
    std::this_thread::sleep_for(pause);
  }
};

}  // namespace aisp::test_pairs
