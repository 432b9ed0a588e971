// Test-only pairs for ctx.mark (docs/contract.md, "Marks"): a toy "generation" on the CPU, y =
// 2x + 1 over 4096 floats, with a sleep before the first token and one after it. Sleeps make the
// mark times known in advance (baseline: first token after >= 2 ms of a >= 3 ms run; optimized:
// >= 0.5 ms of >= 1 ms), so tests can check the harness reports them where they happened.
#pragma once

#include <chrono>
#include <thread>

#include <aisp/aisp.hpp>

namespace aisp::test_pairs {

struct MarkedProblem : Benchmark {
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
    w.counters = {{"tokens", 16, "tokens"}};
    return w;
  }

 protected:
  // The "prefill" (the affine loop, then `before`), the mark, then the "decode" (`after`).
  void generate(Context& ctx, std::chrono::microseconds before, std::chrono::microseconds after,
                const char* mark = "first_token") {
    const float* in = x.as<float>();
    float* out = y.as<float>();
    for (std::size_t i = 0; i < kCount; ++i) out[i] = 2.0f * in[i] + 1.0f;
    std::this_thread::sleep_for(before);
    ctx.mark(mark);
    std::this_thread::sleep_for(after);
  }
};

}  // namespace aisp::test_pairs
