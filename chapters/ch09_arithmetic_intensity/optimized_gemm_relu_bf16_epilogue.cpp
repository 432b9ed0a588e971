// Optimized: BF16 tensor cores with the ReLU in the GEMM's epilogue. A and B are converted to bf16
// (one kernel each, inside the timed region, as autocast does), then one cuBLASLt matmul — bf16
// A and B, fp32 accumulation, fp32 C — with CUBLASLT_EPILOGUE_RELU writes C = max(A·Bᵀ, 0) once.
// Two changes against the baseline, each with its own cap (README): the number format (the BF16
// tensor-core rate against FP32 SIMT) and the fusion (the ReLU pass's 128 MiB). It computes in a
// lower precision on purpose and declares it (bf16 operands: ~0.2% relative RMS error).
// Pair gemm_relu: C = relu(A·Bᵀ) at M = N = K = 4096, fp32 in and out. Problem:
// gemm_relu_common.hpp; kernels: gemm_relu_kernels.cu.
#include <cublasLt.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "../common/cublaslt_matmul_plan.hpp"
#include "gemm_relu_common.hpp"
#include "gemm_relu_kernels.cuh"

namespace aisp::ch09 {

class GemmReluBf16Epilogue : public GemmReluProblem {
 public:
  static constexpr std::size_t kWorkspaceLimit = 32u << 20;  // cuBLAS's advice for Hopper

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 80;  // BF16 tensor cores
    return r;
  }

  void setup(aisp::Context& ctx) override {
    GemmReluProblem::setup(ctx);
    a16_ = ctx.alloc("a_bf16", aisp::DType::bf16, std::size_t{kM} * kK, aisp::Role::scratch);
    b16_ = ctx.alloc("b_bf16", aisp::DType::bf16, std::size_t{kN} * kK, aisp::Role::scratch);
    plan_.emplace(
        common::CublasLtMatmulPlan::row_major_tn(kM, kN, kK, CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F));
    plan_->set_operation_attribute(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_RELU);
    try {
      plan_->choose_algorithm(kWorkspaceLimit);
    } catch (const std::runtime_error& e) {
      throw aisp::Unavailable(std::string("cuBLASLt offers no bf16-in, fp32-out algorithm with "
                                          "EPILOGUE_RELU at 4096^3 on this GPU: ") +
                              e.what());
    }
    if (plan_->workspace_bytes() > 0)
      workspace_ = ctx.alloc("cublaslt_workspace", aisp::DType::u8, plan_->workspace_bytes(),
                             aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    auto* a16 = a16_.as<__nv_bfloat16>();
    auto* b16 = b16_.as<__nv_bfloat16>();
    AISP_CUDA_CHECK(launch_convert_f32_to_bf16(a(), a16, std::size_t{kM} * kK, ctx.stream()));
    AISP_CUDA_CHECK(launch_convert_f32_to_bf16(b(), b16, std::size_t{kN} * kK, ctx.stream()));
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(plan_->run(&alpha, a16, b16, &beta, c(), c(),
                                 plan_->workspace_bytes() > 0 ? workspace_.data() : nullptr,
                                 plan_->workspace_bytes(), ctx.stream()));
  }


  // Host simulation: rounding both operands of a K-term dot product of uniform[-1, 1) values to
  // bf16 gives a relative RMS error of 2.1e-3 (200 dot products, K = 8192; the relative size does
  // not depend on K). ReLU keeps it where C > 0 and shrinks it where the sign flips. Bound 6e-3:
  // about 3×.
  std::optional<aisp::LowerPrecision> lower_precision() const override {
    return aisp::LowerPrecision{
        "bf16 A and B (converted in the timed region), fp32 accumulation and output, cuBLASLt "
        "with CUBLASLT_EPILOGUE_RELU",
        6e-3,
        "rounding both operands to bf16 (8 mantissa bits) gives a dot product of uniform[-1,1) "
        "values a relative RMS error of 2.1e-3 (host simulation, 200 dot products at K=8192); "
        "ReLU does not enlarge it; 6e-3 is about 3x"};
  }

  std::string library_reference() const override { return "cuBLASLt"; }

  void teardown(aisp::Context&) override { plan_.reset(); }

 private:
  aisp::Tensor a16_, b16_, workspace_;
  std::optional<common::CublasLtMatmulPlan> plan_;
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::GemmReluBf16Epilogue)
