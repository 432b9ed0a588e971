// Chapter 10's GEMMs with an epilogue of their own, beside the ladder's rungs
// (gemm_bf16_kernels.cuh, whose argument and launch types they share):
//   - the persistent rung's kernel with bias + GELU in its epilogue (gemm_bias_gelu_persistent_
//     kernel.cu): both consumer warpgroups split one 128×256 tile and store it together;
//   - the ping-pong kernel (gemm_bf16_pingpong_kernel.cu): each consumer warpgroup owns a whole
//     128×128 tile and the two alternate, one storing its tile while the other multiplies; built
//     plain (a candidate rung of the ladder) and with bias + GELU.
// Same layouts as the ladder: A M×K row-major, B N×K row-major (K-major), C M×N row-major, all
// bf16, FP32 accumulation; bias one bf16 value per column of C. Shapes that are not whole tiles
// are refused in prepare (std::invalid_argument naming the tile).
// Depends on CUDA and chapters/common only, so scripts/probes/gemm_epilogue_probe.cu links it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "gemm_bf16_kernels.cuh"

namespace aisp::ch10 {

struct GemmBiasGeluArgs {
  GemmBf16Args gemm;                    // A, B, C and the shape
  const __nv_bfloat16* bias = nullptr;  // N values, one per column of C (16-byte aligned)
};

struct GemmBiasGeluLaunch {
  GemmBf16Launch gemm;
  const __nv_bfloat16* bias = nullptr;
};

// C = A·Bᵀ, ping-pong schedule (tile 128×128 per consumer warpgroup).
GemmBf16Launch prepare_gemm_bf16_pingpong(const GemmBf16Args& args, const cudaDeviceProp& device);
cudaError_t launch_gemm_bf16_pingpong(const GemmBf16Launch& launch, cudaStream_t stream);

// C = GELU_tanh(A·Bᵀ + bias), the persistent rung's cooperative schedule (tile 128×256).
GemmBiasGeluLaunch prepare_gemm_bias_gelu_persistent(const GemmBiasGeluArgs& args,
                                                     const cudaDeviceProp& device);
cudaError_t launch_gemm_bias_gelu_persistent(const GemmBiasGeluLaunch& launch, cudaStream_t stream);

// C = GELU_tanh(A·Bᵀ + bias), ping-pong schedule.
GemmBiasGeluLaunch prepare_gemm_bias_gelu_pingpong(const GemmBiasGeluArgs& args,
                                                   const cudaDeviceProp& device);
cudaError_t launch_gemm_bias_gelu_pingpong(const GemmBiasGeluLaunch& launch, cudaStream_t stream);

// The unfused baseline's two elementwise kernels (gemm_bias_gelu_elementwise.cu), bf16, 16 bytes
// per access: h[r][c] += bias[c] in place (M×N, N a multiple of 8), and out = GELU_tanh(in) for
// `count` elements (a multiple of 8). Each returns the launch's cudaError_t.
cudaError_t launch_add_bias_bf16(__nv_bfloat16* h, const __nv_bfloat16* bias, int m, int n,
                                 cudaStream_t stream);
cudaError_t launch_gelu_tanh_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t count,
                                  cudaStream_t stream);

}  // namespace aisp::ch10
