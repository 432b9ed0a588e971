// The variants of pair grouped_gemm (grouped_gemm_problem.hpp), written once here so each variant
// file is one line plus its comment. Host code only.
//   GroupedGemmCublasLoop     one cublasGemmEx per expert (63 launches: the empty expert skipped)
//   GroupedGemmWgmma          one persistent grouped wgmma kernel over all experts' tiles
//                             (chapters/common/grouped_gemm_bf16.cuh)
//   GroupedGemmCublasGrouped  cublasGemmGroupedBatchedEx: the library's grouped GEMM, one call
//                             (the library reference)
// Row-major Y_g = X_g·W_gᵀ is, in cuBLAS's column-major terms, Y_gᵀ (N × M_g) = op(W_g)·X_gᵀ with
// W_g transposed (stored K×N column-major = N×K row-major, ld K) and X_gᵀ as stored (K × M_g
// column-major = M_g×K row-major, ld K); ld of Y_gᵀ is N.
#pragma once

#include <aisp/aisp.hpp>
#include <cublas_v2.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/grouped_gemm_bf16.cuh"
#include "grouped_gemm_problem.hpp"

namespace aisp::ch14 {

inline aisp::Requirements cublas_bf16_requirements() {
  aisp::Requirements r;
  r.min_compute_capability = 80;
  return r;
}

// Baseline: the loop a framework runs over experts, one GEMM launch each, sizes from the host.
class GroupedGemmCublasLoop : public GroupedGemmProblem {
 public:
  aisp::Requirements requirements() const override { return cublas_bf16_requirements(); }

  void run(aisp::Context& ctx) override {
    const std::array<int, kGroups + 1> offsets = group_row_offsets();
    const float alpha = 1.0f, beta = 0.0f;
    for (int g = 0; g < kGroups; ++g) {
      const int rows = kGroupRows[g];
      if (rows == 0)
        continue;  // nothing routed to this expert: no launch
      const std::size_t row0 = static_cast<std::size_t>(offsets[g]);
      AISP_CUBLAS_CHECK(cublasGemmEx(
          ctx.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, kGroupedN, rows, kGroupedK, &alpha,
          w() + static_cast<std::size_t>(g) * kGroupedN * kGroupedK, CUDA_R_16BF, kGroupedK,
          x() + row0 * kGroupedK, CUDA_R_16BF, kGroupedK, &beta, y() + row0 * kGroupedN,
          CUDA_R_16BF, kGroupedN, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
  }

};

// The persistent grouped kernel: sizes read on the device, one launch.
class GroupedGemmWgmma : public GroupedGemmProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::wgmma, aisp::Feature::tma};
    return r;
  }

  void setup(aisp::Context& ctx) override {
    GroupedGemmProblem::setup(ctx);
    launch_ = common::prepare_grouped_gemm_bf16(
        common::GroupedGemmBf16Args{x(), w(), y(), row_offsets(), kGroups, grouped_total_rows(),
                                    kGroupedN, kGroupedK},
        ctx.device_properties());
  }

  void run(aisp::Context& ctx) override {
    AISP_CUDA_CHECK(common::launch_grouped_gemm_bf16(launch_, ctx.stream()));
  }


 private:
  common::GroupedGemmBf16Launch launch_;
};

// The library reference: cuBLAS's grouped GEMM. Each non-empty expert is a group of one problem;
// the per-group sizes are host arrays, the matrix pointers device arrays (built in setup).
class GroupedGemmCublasGrouped : public GroupedGemmProblem {
 public:
  aisp::Requirements requirements() const override { return cublas_bf16_requirements(); }

  void setup(aisp::Context& ctx) override {
    GroupedGemmProblem::setup(ctx);
    const std::array<int, kGroups + 1> offsets = group_row_offsets();
    std::vector<const void*> w_ptrs, x_ptrs;
    std::vector<void*> y_ptrs;
    m_.clear();  // setup may run again on the same object (verification's fresh allocations)
    n_.clear();
    for (int g = 0; g < kGroups; ++g) {
      if (kGroupRows[g] == 0)
        continue;
      const auto row0 = static_cast<std::size_t>(offsets[g]);
      w_ptrs.push_back(w() + static_cast<std::size_t>(g) * kGroupedN * kGroupedK);
      x_ptrs.push_back(x() + row0 * kGroupedK);
      y_ptrs.push_back(y() + row0 * kGroupedN);
      m_.push_back(kGroupedN);
      n_.push_back(kGroupRows[g]);
    }
    const std::size_t count = m_.size();
    k_.assign(count, kGroupedK);
    ld_k_.assign(count, kGroupedK);
    ld_n_.assign(count, kGroupedN);
    trans_a_.assign(count, CUBLAS_OP_T);
    trans_b_.assign(count, CUBLAS_OP_N);
    alpha_.assign(count, 1.0f);
    beta_.assign(count, 0.0f);
    group_size_.assign(count, 1);
    const auto device_copy = [&](const char* name, const void* host) {
      aisp::Tensor t = ctx.alloc(name, aisp::DType::u64, count, aisp::Role::scratch);
      AISP_CUDA_CHECK(cudaMemcpyAsync(t.data(), host, count * sizeof(void*), cudaMemcpyHostToDevice,
                                      ctx.stream()));
      return t;
    };
    w_array_ = device_copy("w_pointers", w_ptrs.data());
    x_array_ = device_copy("x_pointers", x_ptrs.data());
    y_array_ = device_copy("y_pointers", y_ptrs.data());
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
    // One untimed call: a cuBLAS without a grouped BF16 path answers NOT_SUPPORTED (a skip).
    const cublasStatus_t status = call(ctx);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED)
      throw aisp::Unavailable("cublasGemmGroupedBatchedEx returned CUBLAS_STATUS_NOT_SUPPORTED for "
                              "bf16 inputs and output with fp32 compute on this GPU and cuBLAS " +
                              std::to_string(CUBLAS_VERSION) + ": no library grouped GEMM here");
    AISP_CUBLAS_CHECK(status);
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  void run(aisp::Context& ctx) override { AISP_CUBLAS_CHECK(call(ctx)); }

  std::string library_reference() const override { return "cuBLAS"; }


 private:
  cublasStatus_t call(aisp::Context& ctx) const {
    return cublasGemmGroupedBatchedEx(
        ctx.cublas(), trans_a_.data(), trans_b_.data(), m_.data(), n_.data(), k_.data(),
        alpha_.data(), static_cast<const void* const*>(w_array_.data()), CUDA_R_16BF, ld_k_.data(),
        static_cast<const void* const*>(x_array_.data()), CUDA_R_16BF, ld_k_.data(), beta_.data(),
        static_cast<void* const*>(y_array_.data()), CUDA_R_16BF, ld_n_.data(),
        static_cast<int>(m_.size()), group_size_.data(), CUBLAS_COMPUTE_32F);
  }

  std::vector<cublasOperation_t> trans_a_, trans_b_;
  std::vector<int> m_, n_, k_, ld_k_, ld_n_, group_size_;
  std::vector<float> alpha_, beta_;
  aisp::Tensor w_array_, x_array_, y_array_;
};

}  // namespace aisp::ch14
