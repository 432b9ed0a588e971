// The problem every matmul_tiled variant solves: C = A·B in fp32 on CUDA cores (no tensor cores),
// M = N = K = 4096, all three matrices row-major: A is M×K, B is K×N, C is M×N. Inputs uniform in
// [-1, 1). 2·M·N·K = 137 GFLOP against 3 · 64 MiB of matrices: compute-bound, measured against
// the FP32 SIMT ceiling (cuBLAS SGEMM, 50.6 TFLOP/s on the H200 in ANCHORS.md).
// Every variant sums each dot product over k in ascending order with one fused multiply-add per
// term, so on one GPU they agree to the bit; the tolerance below is for the day one of them does
// not (another tile order, split-K, another compiler's contraction choices).
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace aisp::ch07 {

class MatmulTiledProblem : public aisp::Benchmark {
 public:
  static constexpr int kM = 4096;
  static constexpr int kN = 4096;
  static constexpr int kK = 4096;
  // The widest block tile (optimized_matmul_tiled_regblock: 128×128, k-step 16) has no tail
  // handling; the 32×32 kernels need multiples of 32.
  static_assert(kM % 128 == 0 && kN % 128 == 0 && kK % 16 == 0,
                "the matmul_tiled kernels have no tail handling: M and N must be multiples of "
                "128 and K of 16");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("m", kM).set("n", kN).set("k", kK);
    s.set("dtype", aisp::DType::f32).set("layout", "row-major").set("math", "fp32-simt");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    a_ = ctx.alloc("a", DType::f32, static_cast<std::size_t>(kM) * kK, Role::input);
    b_ = ctx.alloc("b", DType::f32, static_cast<std::size_t>(kK) * kN, Role::input);
    c_ = ctx.alloc("c", DType::f32, static_cast<std::size_t>(kM) * kN, Role::output);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {c_}; }

  // The float64 product, for the precision check: an fp32 problem must not be solved in TF32.
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const auto a = in.f32("a");
      const auto b = in.f32("b");
      const std::size_t row = index / kN, col = index % kN;
      double sum = 0;
      for (std::size_t k = 0; k < kK; ++k)
        sum += static_cast<double>(a[row * kK + k]) * static_cast<double>(b[k * kN + col]);
      return sum;
    };
  }

  // Each element of C is a 4096-term dot product of values uniform in [-1, 1): the terms a·b have
  // mean magnitude 1/4, so sum |a_k b_k| ≈ 1024, while the result itself is typically
  // sqrt(4096 / 9) ≈ 21 and can be arbitrarily close to 0. Rounding in a different summation
  // order moves the result by a random walk of ~sqrt(K) roundings of the running sum: of order
  // sqrt(4096) · 2^-24 · 21 ≈ 1e-4 in the worst orders (blocked orders do better), whatever the
  // result's size, so fp32's default atol (1e-6) would fail on results near zero. atol 2e-3
  // (≈ 16 ulps of the 1024 that bounds the partial sums' scale) leaves room for any reordering and
  // still catches real errors: one missing or doubled term moves an element by ~0.25 on average.
  // rtol stays 1e-5. (The variants here use the same order and are expected to match exactly.)
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{
        1e-5, 2e-3,
        "each element is a 4096-term fp32 dot product; another summation order moves it by "
        "~sqrt(K)·2^-24·|partial sums| ~ 1e-4 whatever its size (partial sums ~21, "
        "sum|a·b| ~1024), so atol 2e-3 (~16 ulps of 1024) instead of 1e-6; a missing term "
        "moves an element by ~0.25"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.flops = 2.0 * kM * kN * static_cast<double>(kK);
    // A and B read once, C written once.
    w.bytes = 4.0 * (static_cast<double>(kM) * kK + static_cast<double>(kK) * kN +
                     static_cast<double>(kM) * kN);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* a() const { return a_.as<const float>(); }
  const float* b() const { return b_.as<const float>(); }
  float* c() const { return c_.as<float>(); }
  static constexpr int m() { return kM; }
  static constexpr int n() { return kN; }
  static constexpr int k() { return kK; }

 private:
  aisp::Tensor a_, b_, c_;
};

}  // namespace aisp::ch07
