// Quantizing bf16 tensors to FP8 e4m3 with scales (fp8_e4m3.cuh's conventions, the layouts of
// fp8_scale_layouts.cuh). Host launchers over kernels compiled once in fp8_quantize.cu; they take
// a stream, launch, and return the launch's cudaError_t for the caller to check. No harness
// headers: probes link these files directly.
//
// Per-tensor scaling needs the whole tensor's amax before the first element can be cast, so it is
// either three kernels (what composing framework ops gives: amax, scale, cast) or one kernel with
// a grid-wide barrier between the amax and the cast (a cooperative launch, every block resident).
// The finer granularities are local: each row or block finds its own amax, scales and casts in one
// pass, one kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "fp8_scale_layouts.cuh"

namespace aisp::common {

// ---- per-tensor, three kernels ----
// Blocks of the amax kernel, hence floats of its partials buffer.
inline constexpr int kAbsmaxPartials = 1056;

// partials[b] = max |x| over block b's grid-stride share of x (kAbsmaxPartials floats written).
cudaError_t launch_absmax_partials_bf16(const __nv_bfloat16* x, std::size_t count, float* partials,
                                        cudaStream_t stream);
// Reduces `count` partials to the amax; writes quant_scale[0] = 448/amax and
// dequant_scale[0] = amax/448 (either pointer may be null).
cudaError_t launch_e4m3_scales_from_partials(const float* partials, int count, float* quant_scale,
                                             float* dequant_scale, cudaStream_t stream);
// q[i] = e4m3(x[i] · quant_scale[0]), saturating at ±448.
cudaError_t launch_cast_bf16_to_e4m3(const __nv_bfloat16* x, std::size_t count,
                                     const float* quant_scale, std::uint8_t* q,
                                     cudaStream_t stream);
// The three in order (partials: kAbsmaxPartials floats of scratch; quant_scale: 1 float).
cudaError_t launch_quantize_e4m3_per_tensor(const __nv_bfloat16* x, std::size_t count,
                                            float* partials, float* quant_scale, std::uint8_t* q,
                                            float* dequant_scale, cudaStream_t stream);

// ---- per-tensor, one cooperative kernel ----
// Blocks the fused kernel runs with on this device (all resident at once), hence floats of its
// partials buffer. Call in setup.
int fused_per_tensor_quantize_blocks(const cudaDeviceProp& device);
// amax -> grid-wide barrier -> scale -> cast, in one launch of `blocks` blocks (the value above).
// x is read twice (the second time from L2 as far as it still holds it).
cudaError_t launch_quantize_e4m3_per_tensor_fused(const __nv_bfloat16* x, std::size_t count,
                                                  float* partials, int blocks, std::uint8_t* q,
                                                  float* dequant_scale, cudaStream_t stream);

// ---- per row, 1x128 and 128x128 blocks: one pass, one kernel ----
// x: rows × cols bf16 row-major -> q (same shape, e4m3) and dequant_scales in the granularity's
// layout (Fp8ScaleLayout{granularity, rows, cols}.count() floats). cols must be a multiple of 8
// (of 128 for the block granularities, and rows of 128 for 128x128). per_tensor is refused
// (cudaErrorInvalidValue): use the per-tensor launchers above.
cudaError_t launch_quantize_e4m3(const __nv_bfloat16* x, int rows, int cols,
                                 Fp8ScaleGranularity granularity, std::uint8_t* q,
                                 float* dequant_scales, cudaStream_t stream);

}  // namespace aisp::common
