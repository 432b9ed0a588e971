// The problem every transpose variant solves: out = inᵀ for a square 16384×16384 fp32 matrix,
// row-major, out[c·n + r] = in[r·n + c]. 1 GiB in, 1 GiB out: ~36× the H200's 60 MiB L2, so both
// matrices stream from and to HBM. Every variant works on 32×32 (or 64×64) tiles; n must be a
// multiple of 64, checked at compile time.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch07 {

class TransposeProblem : public aisp::Benchmark {
 public:
  static constexpr int kN = 16384;
  static_assert(kN % 64 == 0, "the transpose kernels have no tail handling: n must be a multiple "
                              "of 64 (the widest tile, optimized_transpose_padded_vec4)");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("n", kN).set("dtype", aisp::DType::f32).set("layout", "row-major");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    const std::size_t count = static_cast<std::size_t>(kN) * kN;
    in_ = ctx.alloc("in", aisp::DType::f32, count, aisp::Role::input);
    out_ = ctx.alloc("out", aisp::DType::f32, count, aisp::Role::output);
    ctx.fill_uniform(in_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * kN * kN * sizeof(float);  // every element read once and written once
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  static constexpr int n() { return kN; }

 private:
  aisp::Tensor in_, out_;
};

}  // namespace aisp::ch07
