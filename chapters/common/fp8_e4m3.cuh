// FP8 e4m3 (the OCP "E4M3FN" format Hopper's tensor cores take): 1 sign bit, 4 exponent bits
// (bias 7), 3 mantissa bits; no infinities, one NaN pattern per sign (0x7F/0xFF), largest finite
// value 448, smallest normal 2^-6, smallest subnormal 2^-9. Three mantissa bits mean a rounding
// error of up to 2^-4 (6.25%) of the value, which is why FP8 GEMMs scale their operands: a scale
// s maps a tensor's range onto e4m3's before the cast (q = e4m3(x·s)) and the GEMM multiplies the
// product back by 1/s (the "dequantization factor" cuBLASLt's A/B scale pointers take).
//
// Conventions used by every FP8 helper in chapters/common (fp8_*, quant_*):
//   quant scale  s = 448 / amax        (amax = the largest |x| the scale covers)
//   dequant      d = 1 / s = amax / 448 (what a GEMM multiplies its accumulator by)
// A scale of 1 is used when amax is 0 or not finite (an all-zero block stays zero).
#pragma once

#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace aisp::common {

inline constexpr float kE4m3Max = 448.0f;

// The scale that maps amax onto e4m3's largest finite value.
__host__ __device__ inline float e4m3_quant_scale(float amax) {
  return (amax > 0.0f && amax < 3.0e38f) ? kE4m3Max / amax : 1.0f;
}

// Its inverse, the factor a GEMM's accumulator is multiplied by (cuBLASLt's A/B scale).
__host__ __device__ inline float e4m3_dequant_scale(float amax) {
  return (amax > 0.0f && amax < 3.0e38f) ? amax / kE4m3Max : 1.0f;
}

// Two floats rounded to nearest (even) e4m3, saturating to ±448, packed low byte first.
__device__ __forceinline__ std::uint16_t pack_e4m3x2(float lo, float hi) {
  return __nv_cvt_float2_to_fp8x2(make_float2(lo, hi), __NV_SATFINITE, __NV_E4M3);
}

// Four floats -> four e4m3 bytes in one word, the first at the lowest address.
__device__ __forceinline__ std::uint32_t pack_e4m3x4(float a, float b, float c, float d) {
  return static_cast<std::uint32_t>(pack_e4m3x2(a, b)) |
         (static_cast<std::uint32_t>(pack_e4m3x2(c, d)) << 16);
}

// Host decoding of one e4m3 byte, exact in double (references and probes).
inline double e4m3_to_double(std::uint8_t bits) {
  const int sign = bits >> 7;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  double magnitude;
  if (exponent == 0xF && mantissa == 0x7)
    return std::nan("");
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<double>(mantissa), -9);  // subnormal: m · 2^-6 / 8
  else
    magnitude = std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
  return sign ? -magnitude : magnitude;
}

// Host rounding of a float to e4m3 (nearest even, saturating), as the device's cvt.rn.satfinite
// does: for simulations and probes that need the quantized value without a GPU.
inline std::uint8_t double_to_e4m3(double x) {
  return __nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
}

}  // namespace aisp::common
