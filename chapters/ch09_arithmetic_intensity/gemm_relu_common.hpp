// The problem both gemm_relu variants solve: a linear layer without bias followed by ReLU, in FP32,
//   C (M×N, fp32) = max(A·Bᵀ, 0),  A M×K row-major, B N×K row-major (K-major, "TN"),
// at M = N = K = 4096, inputs uniform in [-1, 1) (ctx.fill_uniform). The baseline computes it as
// an FP32 program does: cuBLAS SGEMM writes A·Bᵀ, a ReLU kernel reads it and writes C. The
// optimized variant does what autocast to BF16 plus a fused epilogue does: it converts A and B to
// BF16 (in the timed region, as autocast does at every call), multiplies them on the tensor cores
// with FP32 accumulation, and applies the ReLU in the GEMM's epilogue (cuBLASLt
// CUBLASLT_EPILOGUE_RELU), writing the FP32 C once.
// Two changes, two caps, stated apart (README):
//   - precision: BF16 tensor cores against FP32 SIMT, 764–776 against 50.6 TFLOP/s (ANCHORS.md):
//     the GEMM itself can run ~15× faster;
//   - fusion: the ReLU pass moves 2·4·M·N = 128 MiB (C read and written) that the epilogue does
//     not, ~0.03 ms at the copy rate; the conversion adds 6·(M·K + N·K) = 192 MiB read and
//     written. Against the BF16 GEMM (~0.18 ms at cuBLAS's rate) those bytes are not small.
// Work: 2·M·N·K = 137 GFLOP. Bytes: A and B read once (fp32) and C written once: 4·(M·K + N·K +
// M·N) = 192 MiB. Ceiling: the BF16 tensor rate (what the problem is solved at by the optimized
// variant; the FP32 baseline's fraction of it is what it leaves unused).
// Host code only (the variant files are .cpp; kernels in gemm_relu_kernels.cu).
#pragma once

#include <aisp/aisp.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace aisp::ch09 {

class GemmReluProblem : public aisp::Benchmark {
 public:
  static constexpr int kM = 4096, kN = 4096, kK = 4096;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("m", kM).set("n", kN).set("k", kK);
    s.set("inputs", aisp::DType::f32).set("output", aisp::DType::f32);
    s.set("layout", "A:MxK-row-major,B:NxK-row-major(TN),C:MxN-row-major");
    s.set("op", "C = relu(A*B^T)");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    a_ = ctx.alloc("a", DType::f32, std::size_t{kM} * kK, Role::input);
    b_ = ctx.alloc("b", DType::f32, std::size_t{kN} * kK, Role::input);
    c_ = ctx.alloc("c", DType::f32, std::size_t{kM} * kN, Role::output);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {c_}; }

  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const std::size_t row = index / kN, col = index % kN;
      const std::span<const float> a = in.f32("a"), b = in.f32("b");
      double sum = 0;
      for (std::size_t p = 0; p < kK; ++p)
        sum += static_cast<double>(a[row * kK + p]) * static_cast<double>(b[col * kK + p]);
      return std::max(sum, 0.0);
    };
  }

  // Why looser than fp32's default: the optimized variant rounds A and B to bf16 (8 mantissa
  // bits) before multiplying. A host simulation of 200 dot products of uniform[-1, 1) values at
  // K = 8192 gave an absolute error of RMS 0.065 (0.21% of |C|'s RMS of 30), Gaussian and
  // independent of the element's size; at K = 4096 that is 0.046 (|C| RMS 21). ReLU passes it on
  // where C > 0 and leaves at most |C| where the sign flips. Over 1.7e7 elements the largest is
  // ~5.5 RMS = 0.25; atol 0.4 (8.7 RMS) holds them all, rtol 1e-2 adds room for the elements'
  // own size. What it still catches: a missing 16-term k-step (~1.3), a missed ReLU (|C| up to
  // ~100), a misplaced tile (~30).
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{
        1e-2, 0.4,
        "BF16 operands vs FP32: rounding A and B to 8 mantissa bits gives a K=4096 dot product of "
        "uniform[-1,1) values an independent Gaussian error of RMS 0.046 (host simulation at "
        "K=8192: 0.065), max ~5.5 RMS = 0.25 over 1.7e7 elements: atol 0.4, rtol 1e-2; a missing "
        "k-step moves an element by ~1.3, a missed ReLU by up to ~100"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    const double m = kM, n = kN, k = kK;
    w.flops = 2.0 * m * n * k;
    w.bytes = 4.0 * (m * k + n * k + m * n);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::bf16_tensor;
    return w;
  }

 protected:
  const float* a() const { return a_.as<const float>(); }
  const float* b() const { return b_.as<const float>(); }
  float* c() const { return c_.as<float>(); }

 private:
  aisp::Tensor a_, b_, c_;
};

}  // namespace aisp::ch09
