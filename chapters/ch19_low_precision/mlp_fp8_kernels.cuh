// The elementwise kernels between the MLP's two GEMMs (mlp_fp8_kernels.cu). Each reads the first
// GEMM's output gate_up (T×2f bf16: gate columns 0..f-1, up columns f..2f-1) and produces
// h = silu(gate) ∘ up (T×f), in bf16 or quantized to e4m3:
//   launch_swiglu_bf16                 h in bf16 (the baseline, and the unfused FP8 path, which
//                                      then quantizes h with the three per-tensor kernels)
//   launch_swiglu_e4m3                 h · quant_scale -> e4m3, the scale known in advance (static
//                                      scaling): one elementwise kernel
//   launch_swiglu_e4m3_dynamic_fused   h's amax, its scale and the cast in one cooperative kernel
//                                      (h computed twice: once for the amax, once for the cast)
// f must be a multiple of 8 (16-byte loads). CUDA only (no harness headers). Each returns the
// launch's status.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aisp::ch19 {

cudaError_t launch_swiglu_bf16(const __nv_bfloat16* gate_up, int tokens, int f, __nv_bfloat16* h,
                               cudaStream_t stream);

cudaError_t launch_swiglu_e4m3(const __nv_bfloat16* gate_up, int tokens, int f,
                               const float* quant_scale, std::uint8_t* q, cudaStream_t stream);

// Blocks the fused kernel runs with (all resident), hence floats of its partials buffer.
int swiglu_e4m3_fused_blocks(const cudaDeviceProp& device);
cudaError_t launch_swiglu_e4m3_dynamic_fused(const __nv_bfloat16* gate_up, int tokens, int f,
                                             float* partials, int blocks, std::uint8_t* q,
                                             float* dequant_scale, cudaStream_t stream);

}  // namespace aisp::ch19
