// Weight-only quantized GEMV / skinny GEMM for decode (weight_only_gemv_kernel.cu):
//   y (batch × N, bf16) = x (batch × K, bf16) · Wᵀ,  W = q ∘ scales stored as
//   chapters/common/quant_weight_only.cuh describes (INT4 or INT8, bf16 scale per 128 k).
//   launch_weight_only_gemv_fused   dequantizes in registers and multiplies on the tensor cores,
//                                   reading every weight byte once (batch 1..16);
//   launch_weight_only_dequantize   the other way's first pass: W to bf16 (N × K) in memory, for a
//                                   cuBLAS GEMM to read.
// N must be a multiple of 32 and K of 1024 (the fused kernel's rows per block, and 2 warps per
// row set each taking a whole number of its 4-group prefetch rounds of 128 k). CUDA only (no harness headers);
// each returns the launch's status.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aisp::ch19 {

inline constexpr int kWeightOnlyMaxBatch = 16;

cudaError_t launch_weight_only_gemv_fused(int bits, const std::uint8_t* w,
                                          const __nv_bfloat16* scales, const __nv_bfloat16* x,
                                          __nv_bfloat16* y, int n, int k, int batch,
                                          cudaStream_t stream);

cudaError_t launch_weight_only_dequantize(int bits, const std::uint8_t* w,
                                          const __nv_bfloat16* scales, int n, int k,
                                          __nv_bfloat16* w_bf16, cudaStream_t stream);

}  // namespace aisp::ch19
