// Two fp32 values rounded to bf16 (round to nearest even) and packed into one 32-bit word, the
// lower address first: the unit of a bf16x2 store and of vector stores built from it (uint2,
// uint4), without type-punning arrays of __nv_bfloat162 (whose 4-byte alignment makes a wider
// reinterpretation undefined).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>

namespace aisp::common {

__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

}  // namespace aisp::common
