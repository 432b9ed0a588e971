// The problem both gemm_batched variants solve: 40 independent fp32 matrix products
// C_b = A_b · B_b, each 512×512×512, column-major, the 40 matrices of each operand stored back to
// back (batch stride = one matrix). cuBLAS does the math in both variants; they differ only in
// how many calls it takes. ctx.cublas() is bound to ctx.stream() with default math (plain FP32,
// no TF32).
#pragma once

#include <cublas_v2.h>

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace aisp::ch01 {

class GemmBatchedProblem : public aisp::Benchmark {
 public:
  static constexpr int kM = 512;
  static constexpr int kN = 512;
  static constexpr int kK = 512;
  static constexpr int kBatch = 40;
  // Elements between consecutive matrices of one operand.
  static constexpr long long kStrideA = static_cast<long long>(kM) * kK;
  static constexpr long long kStrideB = static_cast<long long>(kK) * kN;
  static constexpr long long kStrideC = static_cast<long long>(kM) * kN;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("m", kM).set("n", kN).set("k", kK).set("batch", kBatch);
    s.set("dtype", aisp::DType::f32).set("layout", "column-major").set("math", "fp32");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    a_ = ctx.alloc("a", DType::f32, static_cast<std::size_t>(kStrideA) * kBatch, Role::input);
    b_ = ctx.alloc("b", DType::f32, static_cast<std::size_t>(kStrideB) * kBatch, Role::input);
    c_ = ctx.alloc("c", DType::f32, static_cast<std::size_t>(kStrideC) * kBatch, Role::output);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {c_}; }

  // The float64 products, for the precision check (column-major: element (i, j) of C_b sits at
  // b·strideC + j·M + i).
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const auto a = in.f32("a");
      const auto b = in.f32("b");
      const std::size_t batch = index / kStrideC, within = index % kStrideC;
      const std::size_t i = within % kM, j = within / kM;
      const float* a_b = a.data() + batch * kStrideA;
      const float* b_b = b.data() + batch * kStrideB;
      double sum = 0;
      for (std::size_t k = 0; k < kK; ++k)
        sum += static_cast<double>(a_b[k * kM + i]) * static_cast<double>(b_b[j * kK + k]);
      return sum;
    };
  }

  // The two variants may run different cuBLAS kernels (tile shapes, split-K), so each element is
  // the same 512-term dot product summed in another order. With inputs uniform in [-1, 1) the
  // terms' magnitudes sum to about 512/4 = 128, and a reordering moves the result by a few
  // float32 ulps of that sum (ulp(128) ≈ 1.5e-5), however small the result itself is. fp32's
  // default (rtol 1e-5, atol 1e-6) fails on results that cancel towards zero: loop vs batched
  // differed by up to 4.2e-5 on an H200 (one seed, all 10.5M elements). atol 2e-4 (≈ 13 ulps of
  // 128) leaves room for other seeds and kernels and still catches any real error: a wrong or
  // missing term moves an element by ~0.25 on average. rtol stays at fp32's default.
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{1e-5, 2e-4,
                           "another cuBLAS kernel sums each 512-term dot product in another "
                           "order; the rounding scales with sum |a_i b_i| ~ 128, not with the "
                           "result (measured up to 4.2e-5 apart on an H200): atol 2e-4 is ~13 "
                           "ulps of 128"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.flops = 2.0 * kM * kN * kK * kBatch;
    // A and B read once, C written once (beta = 0: C is never read).
    w.bytes = 4.0 * static_cast<double>(kStrideA + kStrideB + kStrideC) * kBatch;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* a() const { return a_.as<const float>(); }
  const float* b() const { return b_.as<const float>(); }
  float* c() const { return c_.as<float>(); }

 private:
  aisp::Tensor a_, b_, c_;
};

}  // namespace aisp::ch01
