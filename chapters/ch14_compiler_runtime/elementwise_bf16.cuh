// The separate elementwise kernels of the unfused (eager) variants: one operation per kernel, each
// reading its bf16 operands and writing a bf16 result through 16-byte vectors, fp32 math. Each is
// a good memory-bound kernel on its own; what the fused variants save is the traffic between
// them. Compiled once (elementwise_bf16.cu). Every pointer must be 16-byte aligned and every
// element count a multiple of 8 (the launchers throw std::invalid_argument otherwise).
// `out` may equal the first input (in place).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aisp::ch14 {

// out = GELU(in), erf form: 0.5·h·(1 + erf(h/√2)) (torch.nn.functional.gelu's default), computed
// by aisp_gelu_erf (fused_ln_gelu_mask_source.cuh: erf by Abramowitz & Stegun 7.1.26, |error|
// ~1e-6), the function the fused ln_gelu_mask kernels call.
void launch_gelu_erf_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t count,
                          cudaStream_t stream);

// out = GELU(in), tanh form: 0.5·h·(1 + tanh(√(2/π)·(h + 0.044715·h³))) (gelu(approximate='tanh'),
// the form cuBLASLt's GELU epilogues compute).
void launch_gelu_tanh_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t count,
                           cudaStream_t stream);

// out = mask ? in : 0, one mask byte per element.
void launch_apply_mask_bf16(const __nv_bfloat16* in, const std::uint8_t* mask, __nv_bfloat16* out,
                            std::size_t count, cudaStream_t stream);

// out[r][c] = in[r][c] + bias[c] over a row-major rows × cols matrix.
void launch_add_bias_bf16(const __nv_bfloat16* in, const __nv_bfloat16* bias, __nv_bfloat16* out,
                          std::size_t rows, std::size_t cols, cudaStream_t stream);

// out = a + b (a residual connection).
void launch_add_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* out,
                     std::size_t count, cudaStream_t stream);

// out = in · scale.
void launch_scale_bf16(const __nv_bfloat16* in, float scale, __nv_bfloat16* out, std::size_t count,
                       cudaStream_t stream);

// Causal masked fill over `matrices` square n × n row-major matrices (attention scores, row =
// query i, column = key j): out[m][i][j] = -inf where j > i, else in[m][i][j].
void launch_causal_mask_fill_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t matrices,
                                  std::size_t n, cudaStream_t stream);

}  // namespace aisp::ch14
