// The variants of the gemm_fp8 pair, written once; each variant file instantiates one with its
// recipe and registers it. The problem is gemm_fp8_problem.cuh.
//   GemmBf16Cublaslt                  the baseline: cuBLASLt BF16, no quantization
//   GemmFp8Cublaslt<A, B, where, ref> cuBLASLt FP8 e4m3 with A and B quantized at granularities
//                                     A and B (fp8_scale_layouts.cuh), in setup or in run()
//   GemmFp8BlockScaledWgmma<rung>     the hand-written 1x128 / 128x128 block-scaled wgmma GEMM
//                                     (Fp8WgmmaRung: tile, cluster, epilogue)
// Where the quantization happens is part of what a variant measures: quantized in run() it is
// timed (amax, scale and cast of both operands, every call: dynamic scaling of activations);
// quantized in setup it is not (weights, or activations a previous layer already wrote in FP8),
// and the FP8 copies are then inputs of the variant like A and B (so verification's fresh-input
// check rewrites them together with A and B).
#pragma once

#include <aisp/aisp.hpp>
#include <cuda_bf16.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include "../common/cublaslt_matmul_plan.hpp"
#include "../common/fp8_cublaslt_plan.hpp"
#include "../common/fp8_quantize.cuh"
#include "../common/fp8_scale_layouts.cuh"
#include "gemm_fp8_block_scaled_kernel.cuh"
#include "gemm_fp8_problem.cuh"

namespace aisp::ch19 {

// cuBLAS's workspace recommendation for Hopper; the heuristic picks among algorithms that fit.
inline constexpr std::size_t kLtWorkspaceLimit = 32u << 20;

// One operand in e4m3 with its factors, as harness tensors.
struct Fp8Operand {
  common::Fp8ScaleLayout layout;
  aisp::Tensor q;       // rows × cols e4m3
  aisp::Tensor scales;  // layout.count() dequantization factors

  std::uint8_t* bytes() const { return q.as<std::uint8_t>(); }
  float* factors() const { return scales.as<float>(); }
};

inline Fp8Operand alloc_fp8_operand(aisp::Context& ctx, const std::string& name, int rows, int cols,
                                    common::Fp8ScaleGranularity granularity, aisp::Role role) {
  Fp8Operand op;
  op.layout = common::Fp8ScaleLayout{granularity, rows, cols};
  op.q = ctx.alloc(name + "_e4m3", aisp::DType::fp8_e4m3,
                   static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), role);
  op.scales = ctx.alloc(name + "_e4m3_scales", aisp::DType::f32, op.layout.count(), role);
  return op;
}

// Scratch for per-tensor quantization: the amax kernel's partials and the quant scale.
struct PerTensorScratch {
  aisp::Tensor partials, quant_scale;
  void alloc(aisp::Context& ctx, const std::string& name) {
    partials = ctx.alloc(name + "_amax_partials", aisp::DType::f32, common::kAbsmaxPartials,
                         aisp::Role::scratch);
    quant_scale = ctx.alloc(name + "_quant_scale", aisp::DType::f32, 1, aisp::Role::scratch);
  }
};

// x (the operand's rows × cols, bf16) -> op: three kernels per tensor, one for finer scales.
inline void quantize_operand(const __nv_bfloat16* x, const Fp8Operand& op,
                             const PerTensorScratch& scratch, cudaStream_t stream) {
  const int rows = op.layout.rows, cols = op.layout.cols;
  if (op.layout.granularity == common::Fp8ScaleGranularity::per_tensor)
    AISP_CUDA_CHECK(common::launch_quantize_e4m3_per_tensor(
        x, static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
        scratch.partials.as<float>(), scratch.quant_scale.as<float>(), op.bytes(), op.factors(),
        stream));
  else
    AISP_CUDA_CHECK(common::launch_quantize_e4m3(x, rows, cols, op.layout.granularity, op.bytes(),
                                                 op.factors(), stream));
}

// The baseline: cuBLASLt BF16 (the algorithm its heuristic ranks first for the TN layout), bf16
// in and out, fp32 accumulation.
class GemmBf16Cublaslt : public Fp8GemmProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 80;
    return r;
  }

  void setup(aisp::Context& ctx) override {
    Fp8GemmProblem::setup(ctx);
    plan_.emplace(common::CublasLtMatmulPlan::row_major_tn(
        static_cast<std::uint64_t>(m()), static_cast<std::uint64_t>(n()),
        static_cast<std::uint64_t>(k()), CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF));
    plan_->choose_algorithm(kLtWorkspaceLimit);
    if (plan_->workspace_bytes() > 0)
      workspace_ = ctx.alloc("cublaslt_workspace", aisp::DType::u8, plan_->workspace_bytes(),
                             aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(plan_->run(&alpha, a(), b(), &beta, c(), c(), workspace_.data(),
                                 plan_->workspace_bytes(), ctx.stream()));
  }

  void teardown(aisp::Context&) override { plan_.reset(); }

 private:
  std::optional<common::CublasLtMatmulPlan> plan_;
  aisp::Tensor workspace_;
};

enum class QuantizeIn { setup, run };

template <common::Fp8ScaleGranularity kA, common::Fp8ScaleGranularity kB, QuantizeIn kWhere,
          bool kLibraryReference = false>
class GemmFp8Cublaslt : public Fp8GemmProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 89;
    r.features = {aisp::Feature::fp8};
    return r;
  }

  void setup(aisp::Context& ctx) override {
    Fp8GemmProblem::setup(ctx);
    const aisp::Role role = kWhere == QuantizeIn::setup ? aisp::Role::input : aisp::Role::scratch;
    qa_ = alloc_fp8_operand(ctx, "a", m(), k(), kA, role);
    qb_ = alloc_fp8_operand(ctx, "b", n(), k(), kB, role);
    scratch_.alloc(ctx, "fp8");
    plan_.emplace(common::make_fp8_e4m3_plan(
        static_cast<std::uint64_t>(m()), static_cast<std::uint64_t>(n()),
        static_cast<std::uint64_t>(k()), {kA, qa_.factors()}, {kB, qb_.factors()}));
    const std::string refusal = common::fp8_heuristic_answer(*plan_, kLtWorkspaceLimit);
    if (!refusal.empty())  // a skip with cuBLASLt's answer as the reason, not a failure
      throw aisp::Unavailable(
          std::string("cuBLASLt ") + std::to_string(cublasLtGetVersion()) +
          " offers no FP8 e4m3 algorithm with A scaled " + common::fp8_scale_granularity_name(kA) +
          " and B scaled " + common::fp8_scale_granularity_name(kB) + " on " +
          ctx.device_properties().name +
          ": this scale mode does not run on this GPU with this cuBLASLt (" + refusal + ")");
    if (plan_->workspace_bytes() > 0)
      workspace_ = ctx.alloc("cublaslt_workspace", aisp::DType::u8, plan_->workspace_bytes(),
                             aisp::Role::scratch);
    if constexpr (kWhere == QuantizeIn::setup) {
      quantize_operands(ctx.stream());
      AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
    }
  }

  void run(aisp::Context& ctx) override {
    if constexpr (kWhere == QuantizeIn::run)
      quantize_operands(ctx.stream());
    const float alpha = 1.0f, beta = 0.0f;
    AISP_CUBLAS_CHECK(plan_->run(&alpha, qa_.bytes(), qb_.bytes(), &beta, c(), c(),
                                 workspace_.data(), plan_->workspace_bytes(), ctx.stream()));
  }

  void teardown(aisp::Context&) override { plan_.reset(); }

  std::optional<aisp::LowerPrecision> lower_precision() const override {
    return fp8_gemm_lower_precision(
        std::string("fp8_e4m3 A (") + common::fp8_scale_granularity_name(kA) + " scales) and B (" +
        common::fp8_scale_granularity_name(kB) + " scales), fp32 accumulation, cuBLASLt");
  }

  std::string library_reference() const override {
    return kLibraryReference ? "cuBLASLt" : std::string{};
  }

 private:
  void quantize_operands(cudaStream_t stream) {
    quantize_operand(a(), qa_, scratch_, stream);
    quantize_operand(b(), qb_, scratch_, stream);
  }

  Fp8Operand qa_, qb_;
  PerTensorScratch scratch_;
  std::optional<common::CublasLtMatmulPlan> plan_;
  aisp::Tensor workspace_;
};

// The hand-written block-scaled GEMM (gemm_fp8_block_scaled_kernel.cu), one rung per
// instantiation (Fp8WgmmaRung: tile, cluster, epilogue), on operands quantized
// in setup: A in 1x128 blocks, B in 128x128 blocks.
template <Fp8WgmmaRung kRung>
class GemmFp8BlockScaledWgmma : public Fp8GemmProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::wgmma, aisp::Feature::tma, aisp::Feature::fp8};
    if (kRung.cluster > 1)
      r.features.push_back(aisp::Feature::thread_block_clusters);
    return r;
  }

  void setup(aisp::Context& ctx) override {
    Fp8GemmProblem::setup(ctx);
    qa_ = alloc_fp8_operand(ctx, "a", m(), k(), common::Fp8ScaleGranularity::block_1x128,
                            aisp::Role::input);
    qb_ = alloc_fp8_operand(ctx, "b", n(), k(), common::Fp8ScaleGranularity::block_128x128,
                            aisp::Role::input);
    const PerTensorScratch unused;  // block granularities need no per-tensor scratch
    quantize_operand(a(), qa_, unused, ctx.stream());
    quantize_operand(b(), qb_, unused, ctx.stream());
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
    launch_ = prepare_gemm_fp8_block_scaled(Fp8BlockScaledGemmArgs{qa_.bytes(), qb_.bytes(),
                                                                   qa_.factors(), qb_.factors(),
                                                                   c(), m(), n(), k()},
                                            ctx.device_properties(), kRung);
  }

  void run(aisp::Context& ctx) override {
    AISP_CUDA_CHECK(launch_gemm_fp8_block_scaled(launch_, ctx.stream()));
  }

  std::optional<aisp::LowerPrecision> lower_precision() const override {
    return fp8_gemm_lower_precision("fp8_e4m3 A (1x128 scales) and B (128x128 scales), partial "
                                    "sums promoted to fp32 every 128 k, hand-written wgmma");
  }

 private:
  Fp8Operand qa_, qb_;
  Fp8BlockScaledGemmLaunch launch_;
};

}  // namespace aisp::ch19
