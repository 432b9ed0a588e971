// Optimized: the same cuBLAS call with CUBLAS_COMPUTE_32F_FAST_TF32: A and B are reduced to TF32
// (FP32's 8 exponent bits, 10 of its 23 mantissa bits) and multiplied on the tensor cores,
// products accumulated in FP32; C stays FP32. Eight times the FP32 SIMT rate on Hopper (datasheet
// 495 vs 67 TFLOP/s; cuBLAS measured 406 vs 50.6 at this size, ANCHORS.md), for an error of
// ~2.6e-4 (round-to-nearest) to ~7e-4 (truncation) of C's RMS on this data: a lower-precision
// variant, declared as such and held to its own bound against the float64 reference.
// Pair gemm_fp32: C = A·Bᵀ at M = N = K = 8192, fp32 in and out. Problem: gemm_fp32_common.hpp.
#include "gemm_fp32_common.hpp"

namespace aisp::ch09 {

struct GemmFp32Tf32 : Fp32GemmProblem {
  void run(aisp::Context& ctx) override { gemm(ctx, CUBLAS_COMPUTE_32F_FAST_TF32); }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 80;  // TF32 tensor cores
    return r;
  }

  // Host simulation (200 dot products at K = 8192, inputs uniform in [-1, 1)): relative RMS error
  // 2.6e-4 with round-to-nearest TF32 operands, 6.8e-4 with truncation. Bound 2e-3: 3× the
  // truncated case; an error at FP32's level would be ~1e-6.
  std::optional<aisp::LowerPrecision> lower_precision() const override {
    return aisp::LowerPrecision{
        "tf32 A and B (10 mantissa bits), fp32 accumulation and output, cuBLAS "
        "CUBLAS_COMPUTE_32F_FAST_TF32",
        2e-3,
        "rounding both operands to 10 mantissa bits gives a K=8192 dot product of uniform[-1,1) "
        "values a relative RMS error of 2.6e-4 (round-to-nearest) to 6.8e-4 (truncation) in a "
        "host simulation of 200 dot products; 2e-3 is 3x the truncated case"};
  }
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::GemmFp32Tf32)
