// The variants of pair gemm_bias_gelu (gemm_bias_gelu_problem.hpp), written once here so each
// variant file is one line plus its comment. Host code only: the kernels are reached through
// gemm_epilogue_kernels.cuh and cuBLASLt through chapters/common/cublaslt_matmul_plan.hpp.
//   GemmBiasGeluUnfused       cuBLASLt GEMM (no epilogue) -> bias kernel -> GELU kernel
//   GemmBiasGeluHandWritten   one hand-written wgmma kernel, bias + GELU in its epilogue
//                             (persistent cooperative or ping-pong schedule)
//   GemmBiasGeluCublaslt      cuBLASLt with CUBLASLT_EPILOGUE_GELU_BIAS: the library reference
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "../common/cublaslt_matmul_plan.hpp"
#include "gemm_bf16_rungs.hpp"
#include "gemm_bias_gelu_problem.hpp"
#include "gemm_epilogue_kernels.cuh"

namespace aisp::ch10 {

// cuBLAS's workspace recommendation for Hopper, as for the ladder's reference.
inline constexpr std::size_t kGemmEpilogueWorkspaceLimit = 32u << 20;

// A cuBLASLt plan for this problem's shape and layout, with an epilogue (or none), its algorithm
// chosen; no algorithm is a skip (aisp::Unavailable) with cuBLASLt's answer.
inline common::CublasLtMatmulPlan plan_bias_gelu_gemm(const common::GemmShape& s,
                                                      const __nv_bfloat16* bias, const char* what) {
  auto plan = common::CublasLtMatmulPlan::row_major_tn(
      static_cast<std::uint64_t>(s.m), static_cast<std::uint64_t>(s.n),
      static_cast<std::uint64_t>(s.k), CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF);
  if (bias != nullptr) {
    // Row-major C is cuBLASLt's column-major Cᵀ (N rows): its per-row bias is our per-column one.
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_GELU_BIAS);
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<const void*>(bias));
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, CUDA_R_16BF);
  }
  try {
    plan.choose_algorithm(kGemmEpilogueWorkspaceLimit);
  } catch (const std::runtime_error& e) {
    throw aisp::Unavailable(std::string("cuBLASLt offers no algorithm for ") + what + " at " +
                            std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                            std::to_string(s.k) + " on this GPU: " + e.what());
  }
  return plan;
}

// Baseline: the eager chain. cuBLASLt writes A·Bᵀ to a scratch tensor h; one kernel adds the bias
// to h in place; one kernel writes C = GELU(h). Three launches, h crossing HBM four times.
class GemmBiasGeluUnfused : public GemmBiasGeluProblem {
 public:
  aisp::Requirements requirements() const override { return bf16_tensor_core_requirements(); }

  void setup(aisp::Context& ctx) override {
    GemmBiasGeluProblem::setup(ctx);
    const common::GemmShape& s = shape();
    plan_.emplace(plan_bias_gelu_gemm(s, nullptr, "a bf16 GEMM"));
    h_ = ctx.alloc("gemm_result", aisp::DType::bf16,
                   static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n),
                   aisp::Role::scratch);
    if (plan_->workspace_bytes() > 0)
      workspace_ = ctx.alloc("cublaslt_workspace", aisp::DType::u8, plan_->workspace_bytes(),
                             aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const common::GemmShape& s = shape();
    const float alpha = 1.0f, beta = 0.0f;
    auto* h = h_.as<__nv_bfloat16>();
    AISP_CUBLAS_CHECK(plan_->run(&alpha, a(), b(), &beta, h, h,
                                 plan_->workspace_bytes() > 0 ? workspace_.data() : nullptr,
                                 plan_->workspace_bytes(), ctx.stream()));
    AISP_CUDA_CHECK(launch_add_bias_bf16(h, bias(), s.m, s.n, ctx.stream()));
    AISP_CUDA_CHECK(launch_gelu_tanh_bf16(
        h, c(), static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n), ctx.stream()));
  }


  void teardown(aisp::Context&) override { plan_.reset(); }

 private:
  std::optional<common::CublasLtMatmulPlan> plan_;
  aisp::Tensor h_, workspace_;
};

// A hand-written kernel with the epilogue fused (gemm_epilogue_kernels.cuh): prepared in setup,
// one launch in run().
struct PersistentBiasGelu {
  static constexpr auto prepare = &prepare_gemm_bias_gelu_persistent;
  static constexpr auto launch = &launch_gemm_bias_gelu_persistent;
};
struct PingpongBiasGelu {
  static constexpr auto prepare = &prepare_gemm_bias_gelu_pingpong;
  static constexpr auto launch = &launch_gemm_bias_gelu_pingpong;
};

template <class Kernel>
class GemmBiasGeluHandWritten : public GemmBiasGeluProblem {
 public:
  aisp::Requirements requirements() const override { return wgmma_requirements(); }

  void setup(aisp::Context& ctx) override {
    GemmBiasGeluProblem::setup(ctx);
    const common::GemmShape& s = shape();
    launch_ = Kernel::prepare(GemmBiasGeluArgs{GemmBf16Args{a(), b(), c(), s.m, s.n, s.k}, bias()},
                              ctx.device_properties());
  }

  void run(aisp::Context& ctx) override { AISP_CUDA_CHECK(Kernel::launch(launch_, ctx.stream())); }

 private:
  GemmBiasGeluLaunch launch_;
};

// The library reference: cuBLASLt with CUBLASLT_EPILOGUE_GELU_BIAS (bf16 bias), the algorithm its
// heuristic ranks first, planned in setup.
class GemmBiasGeluCublaslt : public GemmBiasGeluProblem {
 public:
  aisp::Requirements requirements() const override { return bf16_tensor_core_requirements(); }

  void setup(aisp::Context& ctx) override {
    GemmBiasGeluProblem::setup(ctx);
    plan_.emplace(plan_bias_gelu_gemm(shape(), bias(), "a bf16 GEMM with EPILOGUE_GELU_BIAS"));
    if (plan_->workspace_bytes() > 0)
      workspace_ = ctx.alloc("cublaslt_workspace", aisp::DType::u8, plan_->workspace_bytes(),
                             aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(plan_->run(&alpha, a(), b(), &beta, c(), c(),
                                 plan_->workspace_bytes() > 0 ? workspace_.data() : nullptr,
                                 plan_->workspace_bytes(), ctx.stream()));
  }

  std::string library_reference() const override { return "cuBLASLt"; }

  void teardown(aisp::Context&) override { plan_.reset(); }

 private:
  std::optional<common::CublasLtMatmulPlan> plan_;
  aisp::Tensor workspace_;
};

}  // namespace aisp::ch10
