// cuBLASLt FP8 e4m3 GEMMs with scales: the row-major "TN" plan of cublaslt_matmul_plan.hpp with
// e4m3 A and B, bf16 C and D, fp32 accumulation (fast accumulation off: cuBLASLt then promotes
// the tensor cores' partial sums to fp32 periodically), and each operand's dequantization factors
// at one of fp8_scale_layouts.cuh's granularities, passed as cuBLASLt's scale mode and scale
// pointer:
//   C (M×N) = (A_q ∘ d_A) · (B_q ∘ d_B)ᵀ,  A_q M×K and B_q N×K row-major e4m3.
// The scale pointers are device pointers read at every call, so scales computed on the GPU just
// before the GEMM (dynamic scaling) need no host round trip.
//
// Which combinations run depends on the GPU and the cuBLASLt version; the heuristic is the only
// authority. fp8_heuristic_answer() asks it without throwing (for probes and for a setup that
// must explain a refusal); choose_algorithm() on the plan throws with cuBLASLt's status.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cublaslt_matmul_plan.hpp"
#include "fp8_scale_layouts.cuh"

namespace aisp::common {

inline cublasLtMatmulMatrixScale_t cublaslt_scale_mode(Fp8ScaleGranularity granularity) {
  switch (granularity) {
  case Fp8ScaleGranularity::per_tensor:
    return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  case Fp8ScaleGranularity::per_row:
    return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
  case Fp8ScaleGranularity::block_1x128:
    return CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  case Fp8ScaleGranularity::block_128x128:
    return CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  }
  throw std::invalid_argument("cublaslt_scale_mode: unknown granularity");
}

// One operand's dequantization factors, in the layout of its granularity (null: no scale
// pointer, i.e. factors of 1).
struct Fp8OperandScales {
  Fp8ScaleGranularity granularity = Fp8ScaleGranularity::per_tensor;
  const float* dequant = nullptr;
};

// The plan for C = (A_q ∘ d_A)(B_q ∘ d_B)ᵀ. row_major_tn hands cuBLASLt our B as its A and our A as
// its B (it computes Cᵀ), so our B's scales go to cuBLASLt's A scale attributes and vice versa.
// Set before choosing the algorithm: the scale modes change which kernels qualify.
inline CublasLtMatmulPlan make_fp8_e4m3_plan(std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                             const Fp8OperandScales& a_scales,
                                             const Fp8OperandScales& b_scales) {
  CublasLtMatmulPlan plan =
      CublasLtMatmulPlan::row_major_tn(m, n, k, CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_16BF);
  const std::int32_t lt_a_mode = cublaslt_scale_mode(b_scales.granularity);
  const std::int32_t lt_b_mode = cublaslt_scale_mode(a_scales.granularity);
  if (lt_a_mode != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, lt_a_mode);
  if (lt_b_mode != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, lt_b_mode);
  if (b_scales.dequant)
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                 static_cast<const void*>(b_scales.dequant));
  if (a_scales.dequant)
    plan.set_operation_attribute(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                 static_cast<const void*>(a_scales.dequant));
  return plan;
}

// What the heuristic says for a plan: empty when it offers an algorithm within the workspace
// limit (and the plan now holds it), otherwise cuBLASLt's words for the refusal.
inline std::string fp8_heuristic_answer(CublasLtMatmulPlan& plan, std::size_t workspace_limit) {
  try {
    plan.choose_algorithm(workspace_limit);
    return {};
  } catch (const std::exception& error) {
    return error.what();
  }
}

}  // namespace aisp::common
