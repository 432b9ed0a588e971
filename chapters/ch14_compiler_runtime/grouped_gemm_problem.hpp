// The problem every grouped_gemm variant solves: the expert GEMMs of one mixture-of-experts layer,
//   for each expert g of 64:  Y_g (M_g × N) = X_g (M_g × K) · W_gᵀ,  W_g N×K (K-major, "TN"),
// at K = 7168 (hidden width), N = 2048 (expert MLP width) — DeepSeek-V3's expert up-projection
// shape, with 64 experts instead of 256 — over 32768 routed rows (e.g. 4096 tokens × top-8). The
// rows of X and Y are stored expert after expert (as a router's sort leaves them); M_g is uneven
// (kGroupRows below: 0 to 1611 rows, one expert empty, one with 4 rows, one multiple of 128),
// drawn once from a log-normal spread and fixed here so that every variant solves the same
// problem. bf16 in and out, fp32 accumulation; inputs uniform in [-1, 1) (ctx.fill_uniform).
// Work: 2·rows·N·K = 962 GFLOP against the BF16 tensor-core ceiling. Bytes: X (470 MB), the 64
// weight matrices (1879 MB) and Y (134 MB) once: 2.48 GB, 388 FLOP/byte — compute-bound, but
// closer to the H200's ridge (~180) than a square GEMM.
// The group offsets live on the device too ("row_offsets", 65 ints: what a router would write);
// the hand-written grouped kernel reads them there, the cuBLAS variants take the sizes from the
// host (a real MoE layer would first have to copy them back: a synchronization this problem does
// not charge them for).
// Host code only (the variant files are .cpp).
#pragma once

#include <aisp/aisp.hpp>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "grouped_gemm_shape.hpp"

namespace aisp::ch14 {

class GroupedGemmProblem : public aisp::Benchmark {
 public:
  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("groups", kGroups).set("rows", grouped_total_rows());
    s.set("n", kGroupedN).set("k", kGroupedK);
    s.set("group_rows", "fixed uneven list, 0..1611 (grouped_gemm_problem.hpp)");
    s.set("inputs", aisp::DType::bf16).set("accumulate", aisp::DType::f32);
    s.set("output", aisp::DType::bf16);
    s.set("layout", "X:rowsxK-row-major grouped by expert, W:groupsxNxK (TN), Y:rowsxN-row-major");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    const auto rows = static_cast<std::size_t>(grouped_total_rows());
    x_ = ctx.alloc("x", DType::bf16, rows * kGroupedK, Role::input);
    w_ = ctx.alloc("w", DType::bf16, std::size_t{kGroups} * kGroupedN * kGroupedK, Role::input);
    y_ = ctx.alloc("y", DType::bf16, rows * kGroupedN, Role::output);
    offsets_ = ctx.alloc("row_offsets", DType::i32, kGroups + 1, Role::input);
    ctx.fill_uniform(x_);
    ctx.fill_uniform(w_);
    const std::array<int, kGroups + 1> offsets = group_row_offsets();
    AISP_CUDA_CHECK(cudaMemcpyAsync(offsets_.data(), offsets.data(), sizeof(offsets),
                                    cudaMemcpyHostToDevice, ctx.stream()));
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  // float64: the dot product of row r of X with row `col` of W_g, g the expert owning row r.
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      static const std::array<int, kGroups + 1> offsets = group_row_offsets();
      const std::size_t row = index / kGroupedN, col = index % kGroupedN;
      const int g =
          static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), static_cast<int>(row)) -
                           offsets.begin() - 1);
      const std::size_t k = kGroupedK;
      const std::size_t w_row = static_cast<std::size_t>(g) * kGroupedN + col;
      double sum = 0;
      for (std::size_t p = 0; p < k; ++p)
        sum += in.element("x", row * k + p) * in.element("w", w_row * k + p);
      return sum;
    };
  }

  // The BF16 GEMM's tolerance and its argument (chapters/common/gemm_bf16_problem.cuh), at
  // K = 7168: bf16 output of a K-term fp32 sum whose order differs between cuBLAS and the
  // tensor-core tiles of the grouped kernel — one bf16 ulp (0.78%) across a rounding boundary,
  // plus an accumulation difference of ~sqrt(K)·2^-24·28 ≈ 1.4e-4 and a truncation bias of up to
  // ~K/16·2^-24·28 ≈ 7.5e-4. A row of the wrong expert moves an element by ~28.
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{
        1e-2, 5e-3,
        "bf16 output of K=7168 fp32-accumulated dot products in different orders (cuBLAS vs "
        "wgmma tiles): one bf16 ulp across a rounding boundary (0.78%) plus accumulation-order "
        "and tensor-core truncation differences (<= ~1e-3): rtol 1e-2, atol 5e-3; a row of the "
        "wrong expert moves an element by ~28"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    const double rows = grouped_total_rows(), n = kGroupedN, k = kGroupedK;
    w.flops = 2.0 * rows * n * k;
    w.bytes = 2.0 * (rows * k + kGroups * n * k + rows * n);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::bf16_tensor;
    return w;
  }

 protected:
  const __nv_bfloat16* x() const { return x_.as<const __nv_bfloat16>(); }
  const __nv_bfloat16* w() const { return w_.as<const __nv_bfloat16>(); }
  __nv_bfloat16* y() const { return y_.as<__nv_bfloat16>(); }
  const int* row_offsets() const { return offsets_.as<const int>(); }

 private:
  aisp::Tensor x_, w_, y_, offsets_;
};

}  // namespace aisp::ch14
