// The variants of the mlp_fp8 pair (problem: mlp_fp8_problem.cuh), written once:
//   MlpBf16             the baseline: cuBLASLt BF16 GEMM -> SwiGLU kernel -> cuBLASLt BF16 GEMM
//   MlpFp8<scaling>     the same in FP8 e4m3: weights quantized per tensor in setup (untimed, as a
//                       deployment stores them), activations x and h quantized per tensor in the
//                       timed region, both GEMMs through cuBLASLt FP8 (SCALAR_32F scales read
//                       through device pointers). The activations' scaling is the variable:
//     dynamic_unfused   each activation's amax, scale and cast as three kernels (what composing
//                       framework ops gives), SwiGLU a kernel of its own before them:
//                       x: 3 kernels; h: SwiGLU + 3 kernels
//     dynamic_fused     amax, scale and cast in one cooperative kernel (a grid-wide barrier
//                       between the amax and the cast), SwiGLU folded into h's:
//                       x: 1 kernel; h: 1 kernel
//     static_calibrated scales fixed in setup from a calibration batch (another random x of the
//                       same distribution, run through the FP8 path): no amax at run time, the
//                       cast a plain elementwise kernel, SwiGLU folded into h's:
//                       x: 1 kernel; h: 1 kernel (values beyond the calibrated amax saturate)
#pragma once

#include <aisp/aisp.hpp>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>

#include "../common/cublaslt_matmul_plan.hpp"
#include "../common/fp8_cublaslt_plan.hpp"
#include "../common/fp8_quantize.cuh"
#include "gemm_fp8_variants.cuh"
#include "mlp_fp8_kernels.cuh"
#include "mlp_fp8_problem.cuh"

namespace aisp::ch19 {

// A workspace big enough for every plan of a variant (a harness scratch allocation).
inline aisp::Tensor alloc_lt_workspace(aisp::Context& ctx, std::size_t bytes) {
  return bytes > 0 ? ctx.alloc("cublaslt_workspace", aisp::DType::u8, bytes, aisp::Role::scratch)
                   : aisp::Tensor{};
}

class MlpBf16 : public MlpProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 80;
    return r;
  }

  void setup(aisp::Context& ctx) override {
    MlpProblem::setup(ctx);
    const MlpShape& s = shape();
    gate_up_ =
        ctx.alloc("gate_up", aisp::DType::bf16, count(s.tokens, 2 * s.f), aisp::Role::scratch);
    h_ = ctx.alloc("h", aisp::DType::bf16, count(s.tokens, s.f), aisp::Role::scratch);
    up_proj_.emplace(common::CublasLtMatmulPlan::row_major_tn(
        static_cast<std::uint64_t>(s.tokens), static_cast<std::uint64_t>(2 * s.f),
        static_cast<std::uint64_t>(s.d), CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF));
    down_proj_.emplace(common::CublasLtMatmulPlan::row_major_tn(
        static_cast<std::uint64_t>(s.tokens), static_cast<std::uint64_t>(s.d),
        static_cast<std::uint64_t>(s.f), CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF));
    up_proj_->choose_algorithm(kLtWorkspaceLimit);
    down_proj_->choose_algorithm(kLtWorkspaceLimit);
    workspace_bytes_ = std::max(up_proj_->workspace_bytes(), down_proj_->workspace_bytes());
    workspace_ = alloc_lt_workspace(ctx, workspace_bytes_);
  }

  void run(aisp::Context& ctx) override {
    const MlpShape& s = shape();
    const float alpha = 1.0f, beta = 0.0f;
    auto* gate_up = gate_up_.as<__nv_bfloat16>();
    auto* h = h_.as<__nv_bfloat16>();
    AISP_CUBLAS_CHECK(up_proj_->run(&alpha, x(), w13(), &beta, gate_up, gate_up, workspace_.data(),
                                    workspace_bytes_, ctx.stream()));
    AISP_CUDA_CHECK(launch_swiglu_bf16(gate_up, s.tokens, s.f, h, ctx.stream()));
    AISP_CUBLAS_CHECK(down_proj_->run(&alpha, h, w2(), &beta, y(), y(), workspace_.data(),
                                      workspace_bytes_, ctx.stream()));
  }

  void teardown(aisp::Context&) override {
    up_proj_.reset();
    down_proj_.reset();
  }

 private:
  aisp::Tensor gate_up_, h_, workspace_;
  std::size_t workspace_bytes_ = 0;
  std::optional<common::CublasLtMatmulPlan> up_proj_, down_proj_;
};

enum class MlpScaling { dynamic_unfused, dynamic_fused, static_calibrated };

template <MlpScaling kScaling>
class MlpFp8 : public MlpProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 89;
    r.features = {aisp::Feature::fp8};
    return r;
  }

  void setup(aisp::Context& ctx) override {
    MlpProblem::setup(ctx);
    const MlpShape& s = shape();
    using aisp::DType, aisp::Role;
    constexpr auto kPerTensor = common::Fp8ScaleGranularity::per_tensor;
    // Weights in e4m3, quantized here: inputs of this variant like the bf16 weights they
    // come from (verification's fresh-input check rewrites both).
    w13_q_ = alloc_fp8_operand(ctx, "w13", 2 * s.f, s.d, kPerTensor, Role::input);
    w2_q_ = alloc_fp8_operand(ctx, "w2", s.d, s.f, kPerTensor, Role::input);
    scratch_.alloc(ctx, "mlp");
    quantize_operand(w13(), w13_q_, scratch_, ctx.stream());
    quantize_operand(w2(), w2_q_, scratch_, ctx.stream());

    x_q_ = ctx.alloc("x_e4m3", DType::fp8_e4m3, count(s.tokens, s.d), Role::scratch);
    gate_up_ = ctx.alloc("gate_up", DType::bf16, count(s.tokens, 2 * s.f), Role::scratch);
    h_q_ = ctx.alloc("h_e4m3", DType::fp8_e4m3, count(s.tokens, s.f), Role::scratch);
    if constexpr (kScaling == MlpScaling::dynamic_unfused)
      h_ = ctx.alloc("h", DType::bf16, count(s.tokens, s.f), Role::scratch);
    if constexpr (kScaling == MlpScaling::dynamic_fused) {
      x_blocks_ = common::fused_per_tensor_quantize_blocks(ctx.device_properties());
      h_blocks_ = swiglu_e4m3_fused_blocks(ctx.device_properties());
      if (x_blocks_ < 1 || h_blocks_ < 1)
        throw std::runtime_error("mlp_fp8 dynamic_fused: the cooperative quantization kernels "
                                 "fit no block on this GPU (occupancy query returned 0)");
      fused_partials_ =
          ctx.alloc("fused_amax_partials", DType::f32,
                    static_cast<std::size_t>(std::max(x_blocks_, h_blocks_)), Role::scratch);
    }
    // The activations' scales: computed every run (dynamic, scratch) or once here from a
    // calibration batch (static, inputs of the variant).
    const Role scale_role = kScaling == MlpScaling::static_calibrated ? Role::input : Role::scratch;
    // Each factor in an allocation of its own: cuBLASLt refuses a scale pointer that is not
    // 16-byte aligned (CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmul, though the heuristic
    // offered the algorithm: seen on the H200 with the dequant factor 4 bytes into a buffer).
    x_quant_ = ctx.alloc("x_quant_scale", DType::f32, 1, scale_role);
    x_dequant_ = ctx.alloc("x_dequant_scale", DType::f32, 1, scale_role);
    h_quant_ = ctx.alloc("h_quant_scale", DType::f32, 1, scale_role);
    h_dequant_ = ctx.alloc("h_dequant_scale", DType::f32, 1, scale_role);

    up_proj_.emplace(common::make_fp8_e4m3_plan(
        static_cast<std::uint64_t>(s.tokens), static_cast<std::uint64_t>(2 * s.f),
        static_cast<std::uint64_t>(s.d), {kPerTensor, x_dequant_.as<float>()},
        {kPerTensor, w13_q_.factors()}));
    down_proj_.emplace(common::make_fp8_e4m3_plan(
        static_cast<std::uint64_t>(s.tokens), static_cast<std::uint64_t>(s.d),
        static_cast<std::uint64_t>(s.f), {kPerTensor, h_dequant_.as<float>()},
        {kPerTensor, w2_q_.factors()}));
    for (auto* plan : {&*up_proj_, &*down_proj_}) {
      const std::string refusal = common::fp8_heuristic_answer(*plan, kLtWorkspaceLimit);
      if (!refusal.empty())
        throw aisp::Unavailable("mlp_fp8: cuBLASLt offers no per-tensor-scaled FP8 e4m3 GEMM "
                                "algorithm on this GPU (" +
                                refusal + ")");
    }
    workspace_bytes_ = std::max(up_proj_->workspace_bytes(), down_proj_->workspace_bytes());
    workspace_ = alloc_lt_workspace(ctx, workspace_bytes_);

    if constexpr (kScaling == MlpScaling::static_calibrated)
      calibrate(ctx);
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  }

  void run(aisp::Context& ctx) override {
    const MlpShape& s = shape();
    const cudaStream_t stream = ctx.stream();
    const float alpha = 1.0f, beta = 0.0f;
    auto* x_q = x_q_.as<std::uint8_t>();
    auto* gate_up = gate_up_.as<__nv_bfloat16>();
    auto* h_q = h_q_.as<std::uint8_t>();
    const std::size_t x_count = count(s.tokens, s.d);

    if constexpr (kScaling == MlpScaling::dynamic_unfused)
      AISP_CUDA_CHECK(common::launch_quantize_e4m3_per_tensor(
          x(), x_count, partials(), x_quant_.as<float>(), x_q, x_dequant_.as<float>(), stream));
    else if constexpr (kScaling == MlpScaling::dynamic_fused)
      AISP_CUDA_CHECK(common::launch_quantize_e4m3_per_tensor_fused(
          x(), x_count, fused_partials_.as<float>(), x_blocks_, x_q, x_dequant_.as<float>(),
          stream));
    else
      AISP_CUDA_CHECK(
          common::launch_cast_bf16_to_e4m3(x(), x_count, x_quant_.as<float>(), x_q, stream));

    AISP_CUBLAS_CHECK(up_proj_->run(&alpha, x_q, w13_q_.bytes(), &beta, gate_up, gate_up,
                                    workspace_.data(), workspace_bytes_, stream));

    if constexpr (kScaling == MlpScaling::dynamic_unfused) {
      auto* h = h_.as<__nv_bfloat16>();
      AISP_CUDA_CHECK(launch_swiglu_bf16(gate_up, s.tokens, s.f, h, stream));
      AISP_CUDA_CHECK(common::launch_quantize_e4m3_per_tensor(h, count(s.tokens, s.f), partials(),
                                                              h_quant_.as<float>(), h_q,
                                                              h_dequant_.as<float>(), stream));
    } else if constexpr (kScaling == MlpScaling::dynamic_fused) {
      AISP_CUDA_CHECK(launch_swiglu_e4m3_dynamic_fused(gate_up, s.tokens, s.f,
                                                       fused_partials_.as<float>(), h_blocks_, h_q,
                                                       h_dequant_.as<float>(), stream));
    } else {
      AISP_CUDA_CHECK(
          launch_swiglu_e4m3(gate_up, s.tokens, s.f, h_quant_.as<float>(), h_q, stream));
    }

    AISP_CUBLAS_CHECK(down_proj_->run(&alpha, h_q, w2_q_.bytes(), &beta, y(), y(),
                                      workspace_.data(), workspace_bytes_, stream));
  }

  void teardown(aisp::Context&) override {
    up_proj_.reset();
    down_proj_.reset();
  }

  std::optional<aisp::LowerPrecision> lower_precision() const override {
    const char* scaling = kScaling == MlpScaling::static_calibrated
                              ? "static (calibrated) per-tensor activation scales"
                              : "dynamic per-tensor activation scales";
    return fp8_mlp_lower_precision(std::string("fp8_e4m3 x, W13, h and W2 (per-tensor weight "
                                               "scales, ") +
                                   scaling + "), fp32 accumulation, bf16 gate/up and output");
  }

 private:
  float* partials() const { return scratch_.partials.as<float>(); }

  // Static scales: x's from the calibration batch's amax; h's from running that batch through
  // the FP8 path up to the SwiGLU and taking h's amax there.
  void calibrate(aisp::Context& ctx) {
    const MlpShape& s = shape();
    const cudaStream_t stream = ctx.stream();
    const aisp::Tensor calibration =
        ctx.alloc("x_calibration", aisp::DType::bf16, count(s.tokens, s.d), aisp::Role::input);
    ctx.fill_uniform(calibration);
    const auto* x_cal = calibration.as<const __nv_bfloat16>();
    auto* gate_up = gate_up_.as<__nv_bfloat16>();
    AISP_CUDA_CHECK(common::launch_quantize_e4m3_per_tensor(
        x_cal, count(s.tokens, s.d), partials(), x_quant_.as<float>(), x_q_.as<std::uint8_t>(),
        x_dequant_.as<float>(), stream));
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(up_proj_->run(&alpha, x_q_.as<std::uint8_t>(), w13_q_.bytes(), &beta, gate_up,
                                    gate_up, workspace_.data(), workspace_bytes_, stream));
    const aisp::Tensor h_calibration =
        ctx.alloc("h_calibration", aisp::DType::bf16, count(s.tokens, s.f), aisp::Role::scratch);
    auto* h_cal = h_calibration.as<__nv_bfloat16>();
    AISP_CUDA_CHECK(launch_swiglu_bf16(gate_up, s.tokens, s.f, h_cal, stream));
    AISP_CUDA_CHECK(
        common::launch_absmax_partials_bf16(h_cal, count(s.tokens, s.f), partials(), stream));
    AISP_CUDA_CHECK(common::launch_e4m3_scales_from_partials(
        partials(), common::kAbsmaxPartials, h_quant_.as<float>(), h_dequant_.as<float>(), stream));
  }

  Fp8Operand w13_q_, w2_q_;
  PerTensorScratch scratch_;
  aisp::Tensor x_q_, gate_up_, h_, h_q_, fused_partials_, workspace_;
  aisp::Tensor x_quant_, x_dequant_, h_quant_, h_dequant_;  // one float each
  int x_blocks_ = 0, h_blocks_ = 0;
  std::size_t workspace_bytes_ = 0;
  std::optional<common::CublasLtMatmulPlan> up_proj_, down_proj_;
};

}  // namespace aisp::ch19
