// The problem both vector_add variants solve: c = a + b over 2^19 floats (2 MiB per array, 6 MiB
// in all). The size is set by the baseline, which runs the whole loop on one GPU thread: each of
// its ~2^16 sector misses waits out a full memory round trip, so 2^19 elements already take tens
// of milliseconds per call (the README works through the estimate). The optimized grid finishes
// the same work in a few microseconds, where the harness replays a captured graph over rotating
// input sets so that launch overhead and a warm L2 do not decide the result.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch06 {

class VectorAddProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 19;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    a_ = ctx.alloc("a", aisp::DType::f32, kCount, aisp::Role::input);
    b_ = ctx.alloc("b", aisp::DType::f32, kCount, aisp::Role::input);
    c_ = ctx.alloc("c", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {c_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 3.0 * static_cast<double>(kCount) * sizeof(float);  // a, b read; c written
    w.flops = static_cast<double>(kCount);                        // one add per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  const float* a() const { return a_.as<const float>(); }
  const float* b() const { return b_.as<const float>(); }
  float* c() const { return c_.as<float>(); }

 private:
  aisp::Tensor a_, b_, c_;
};

}  // namespace aisp::ch06
