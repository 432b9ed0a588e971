// The problem every matmul_tiled variant solves: C = A·B in fp32 on CUDA cores (no tensor cores),
// M = N = K = 4096, all three matrices row-major: A is M×K, B is K×N, C is M×N. Inputs uniform in
// [-1, 1); the product (inputs, reference, workload, signature) is the one
// chapters/common/f32_matmul_problem.cuh defines for every chapter. 2·M·N·K = 137 GFLOP against
// 3 · 64 MiB of matrices: compute-bound, measured against the FP32 SIMT ceiling (cuBLAS SGEMM,
// 50.6 TFLOP/s on the H200 in ANCHORS.md).
// Every variant sums each dot product over k in ascending order with one fused multiply-add per
// term, so on one GPU they agree to the bit; the tolerance below is for the day one of them does
// not (another tile order, split-K, another compiler's contraction choices).
#pragma once

#include <aisp/aisp.hpp>

#include <optional>

#include "../common/f32_matmul_problem.cuh"

namespace aisp::ch07 {

class MatmulTiledProblem
    : public common::F32MatmulProblem<4096, 4096, 4096, 1, common::MatrixLayout::row_major> {
 public:
  // The widest block tile (optimized_matmul_tiled_regblock: 128×128, k-step 16) has no tail
  // handling; the 32×32 kernels need multiples of 32.
  static_assert(kM % 128 == 0 && kN % 128 == 0 && kK % 16 == 0,
                "the matmul_tiled kernels have no tail handling: M and N must be multiples of "
                "128 and K of 16");

  MatmulTiledProblem() : F32MatmulProblem("fp32-simt") {}

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
};

}  // namespace aisp::ch07
