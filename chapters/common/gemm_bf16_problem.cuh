// The BF16 GEMM problem every tensor-core GEMM pair solves, at the shape a pair chooses:
//   C (M×N, row-major, bf16) = A (M×K, row-major, bf16) · Bᵀ, B given as N×K row-major (bf16),
// with FP32 accumulation. B is stored K-major (each output column's k values contiguous), the
// "TN" form both wgmma and cuBLASLt prefer (and FP8 requires on Hopper): both operands are read
// along k. Inputs uniform in [-1, 1) (rounded to bf16), from ctx.fill_uniform.
// Work: 2·M·N·K FLOPs against the BF16 tensor-core ceiling; bytes: A and B read once and C written
// once, 2·(M·K + N·K + M·N). At 8192³ that is 1.1 TFLOP against 384 MiB (2730 FLOP/byte), at
// 4096³ 137 GFLOP against 96 MiB: compute-bound at both sizes.
// A pair derives its variants from this class with its shape (gemm_bf16: 8192³, gemm_bf16_4k:
// 4096³); each variant adds only run() (and the requirements, tensor maps or library plan it
// needs). FP8, grouped and fused-epilogue GEMMs can reuse the layout, the reference and the
// tolerance argument.
#pragma once

#include <aisp/aisp.hpp>
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace aisp::common {

struct GemmShape {
  int m = 0, n = 0, k = 0;
};

class Bf16GemmProblem : public aisp::Benchmark {
 public:
  explicit Bf16GemmProblem(GemmShape shape) : shape_(shape) {
    if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0)
      throw std::invalid_argument("Bf16GemmProblem: M, N and K must be positive");
  }

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("m", shape_.m).set("n", shape_.n).set("k", shape_.k);
    s.set("inputs", aisp::DType::bf16).set("accumulate", aisp::DType::f32);
    s.set("output", aisp::DType::bf16);
    s.set("layout", "A:MxK-row-major,B:NxK-row-major(TN),C:MxN-row-major");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    a_ = ctx.alloc("a", DType::bf16, count(shape_.m, shape_.k), Role::input);
    b_ = ctx.alloc("b", DType::bf16, count(shape_.n, shape_.k), Role::input);
    c_ = ctx.alloc("c", DType::bf16, count(shape_.m, shape_.n), Role::output);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
    // 16-byte vector loads, cp.async and TMA all need 16-byte aligned rows.
    if (reinterpret_cast<std::uintptr_t>(a_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(b_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(c_.data()) % 16 != 0 || shape_.k % 8 != 0 ||
        shape_.n % 8 != 0)
      throw std::invalid_argument("Bf16GemmProblem: A, B and C must be 16-byte aligned and K and "
                                  "N multiples of 8 (16-byte rows)");
  }

  std::vector<aisp::Tensor> outputs() const override { return {c_}; }

  // The float64 dot product of row `row` of A and row `col` of B (both bf16, decoded exactly).
  ReferenceFunction reference() const override {
    const GemmShape s = shape_;
    return [s](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const std::size_t row = index / static_cast<std::size_t>(s.n);
      const std::size_t col = index % static_cast<std::size_t>(s.n);
      const std::size_t kk = static_cast<std::size_t>(s.k);
      double sum = 0;
      for (std::size_t k = 0; k < kk; ++k)
        sum += in.element("a", row * kk + k) * in.element("b", col * kk + k);
      return sum;
    };
  }

  // Why looser than bf16's default (rtol 8e-3, atol 1e-3). Each product of two bf16 values is
  // exact in fp32; the K-term sum is accumulated in fp32 in an order that differs between variants
  // (one running sum per thread in the SIMT baseline; 16-term tensor-core steps summed into the
  // accumulator, in whatever order the tile shape gives, on the tensor cores). Results are
  // ~sqrt(K/9) (30 at K = 8192) with partial sums of that size, so a different order moves an
  // element by a random walk of fp32 roundings, ~sqrt(K)·2^-24·30 ≈ 2e-4 at K = 8192, and the
  // tensor cores' accumulation (which may truncate rather than round its alignment shifts) can
  // bias that by up to ~K/16 · 2^-24 · 30 ≈ 1e-3 — the same size as the default atol, whatever
  // the element's own size. Then both results are rounded to bf16, which turns any difference that
  // straddles a rounding boundary into one bf16 ulp: up to 2^-7 = 0.78% of the element, just
  // inside the default rtol. So rtol 1e-2 (one ulp plus the fp32 difference) and atol 5e-3 (5× the
  // worst accumulation difference above). A real error is far larger: one missing or doubled
  // 16-term step moves an element by ~sqrt(16/9) ≈ 1.3, a misplaced tile by ~30.
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{
        1e-2, 5e-3,
        "bf16 output of a K-term fp32-accumulated dot product: another accumulation order (SIMT "
        "running sum vs tensor-core 16-term steps) moves an element by ~sqrt(K)*2^-24*30 = 2e-4, "
        "tensor-core truncation by up to ~1e-3 whatever its size, and bf16 rounding turns a "
        "difference across a rounding boundary into one bf16 ulp (up to 0.78% of the element): "
        "rtol 1e-2, atol 5e-3; a missing 16-term step moves an element by ~1.3"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    const double m = shape_.m, n = shape_.n, k = shape_.k;
    w.flops = 2.0 * m * n * k;
    w.bytes = 2.0 * (m * k + n * k + m * n);  // bf16: A and B read once, C written once
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::bf16_tensor;
    return w;
  }

 protected:
  const __nv_bfloat16* a() const { return a_.as<const __nv_bfloat16>(); }
  const __nv_bfloat16* b() const { return b_.as<const __nv_bfloat16>(); }
  __nv_bfloat16* c() const { return c_.as<__nv_bfloat16>(); }
  const GemmShape& shape() const { return shape_; }

 private:
  static std::size_t count(int rows, int cols) {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  }

  GemmShape shape_;
  aisp::Tensor a_, b_, c_;
};

}  // namespace aisp::common
