// The problem both warp_divergence variants solve: y[i] = f(x[i]) for even i and g(x[i]) for odd
// i, over 2^26 floats (256 MiB in, 256 MiB out), where f and g are two different, equally costly
// chains of FMAs (~48 each): f a degree-48 polynomial by Horner's rule, g a 24-term Chebyshev
// series by the three-term recurrence. The per-element math, branch included, is written once
// here (transform); the variants differ only in which thread computes which element, so every
// output is computed by the same floating-point operations and the results are bit-identical.
//
// Sizing: ~96 FLOPs per 8 bytes puts a warp-uniform kernel at the H200's balance point (the FMA
// time at the 50.6 TFLOP/s fp32_simt ceiling, ~127 µs, equals the HBM time at 4275 GB/s, ~126
// µs), so the optimized variant is bound by memory and its roofline floor cannot be beaten.
// Divergence doubles the FMA instructions, which makes the baseline compute-bound. (Heavier math
// would widen the gap toward 2×, but the FMA issue peak, ~67 TFLOP/s at 1.98 GHz, is above the
// SGEMM-measured fp32_simt ceiling, and a kernel bound by it would appear to beat its roofline.)
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch06 {

namespace {

constexpr int kHornerDegree = 48;    // f: 48 FMAs
constexpr int kChebyshevTerms = 24;  // g: T_0 … T_24, 47 FMAs and one add
constexpr double kEvenFlops = 2.0 * kHornerDegree;
constexpr double kOddFlops = 1.0 + 2.0 + 4.0 * (kChebyshevTerms - 1);

// f(x) = Σ_{k=0}^{48} x^k / (k + 1), by Horner's rule. The loop is unrolled, so the coefficients
// are compile-time constants and each step is one FMA. For |x| < 1 it stays below ~4.5.
__device__ __forceinline__ float horner_series(float x) {
  float acc = 1.0f / static_cast<float>(kHornerDegree + 1);
#pragma unroll
  for (int k = kHornerDegree - 1; k >= 0; --k)
    acc = fmaf(acc, x, 1.0f / static_cast<float>(k + 1));
  return acc;
}

// g(x) = Σ_{k=0}^{24} T_k(x) / (k + 1)², with the Chebyshev polynomials from
// T_{k+1} = 2x·T_k − T_{k−1}: two FMAs per term. |T_k(x)| ≤ 1 for |x| ≤ 1, so it stays below ~1.7.
__device__ __forceinline__ float chebyshev_series(float x) {
  const float two_x = x + x;
  float t_prev = 1.0f;               // T_0
  float t = x;                       // T_1
  float sum = fmaf(0.25f, t, 1.0f);  // T_0 / 1 + T_1 / 4
#pragma unroll
  for (int k = 2; k <= kChebyshevTerms; ++k) {
    const float t_next = fmaf(two_x, t, -t_prev);
    sum = fmaf(1.0f / static_cast<float>((k + 1) * (k + 1)), t_next, sum);
    t_prev = t;
    t = t_next;
  }
  return sum;
}

// The per-element work: which function depends on the element's index parity.
__device__ __forceinline__ float transform(float x, std::size_t i) {
  if (i & 1)
    return chebyshev_series(x);
  return horner_series(x);
}

}  // namespace

class WarpDivergenceProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 26;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32);
    s.set("even", "horner_degree_48").set("odd", "chebyshev_24_terms");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(x_);  // [-1, 1): where both series are tame
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // x read once, y written once
    w.flops = static_cast<double>(kCount / 2) * (kEvenFlops + kOddFlops);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* x() const { return x_.as<const float>(); }
  float* y() const { return y_.as<float>(); }

 private:
  aisp::Tensor x_, y_;
};

}  // namespace aisp::ch06
