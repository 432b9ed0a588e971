// Eight bf16 values in one 16-byte vector (uint4), for the MoE ladder's memory-bound kernels:
// a dot product of two such vectors into an fp32 sum (each bf16 × bf16 product is exact in fp32)
// and a warp-wide sum. Device code only.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>

namespace aisp::ch17 {

__device__ __forceinline__ float2 bf16x2_to_float2(std::uint32_t bits) {
  __nv_bfloat162 v;
  std::memcpy(&v, &bits, sizeof(v));
  return __bfloat1622float2(v);
}

// acc + Σ_i a[i]·b[i] over the eight bf16 lanes of a and b.
__device__ __forceinline__ float dot_bf16x8(const uint4& a, const uint4& b, float acc) {
  const std::uint32_t aw[4] = {a.x, a.y, a.z, a.w}, bw[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 fa = bf16x2_to_float2(aw[i]), fb = bf16x2_to_float2(bw[i]);
    acc = fmaf(fa.x, fb.x, acc);
    acc = fmaf(fa.y, fb.y, acc);
  }
  return acc;
}

// The eight bf16 lanes of v as floats.
__device__ __forceinline__ void bf16x8_to_float(const uint4& v, float (&out)[8]) {
  const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = bf16x2_to_float2(w[i]);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}

// Eight floats rounded to bf16 (nearest even) in one 16-byte vector.
__device__ __forceinline__ uint4 float_to_bf16x8(const float (&in)[8]) {
  std::uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(in[2 * i], in[2 * i + 1]);
    std::memcpy(&w[i], &v, sizeof(w[i]));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float silu_times(float g, float u) {
  return g / (1.0f + __expf(-g)) * u;
}

}  // namespace aisp::ch17
