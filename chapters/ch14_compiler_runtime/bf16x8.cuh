// Eight bf16 values as one 16-byte vector (uint4), converted to and from fp32 registers: the unit
// of every bf16 load and store in this chapter's kernels (one 16-byte access per thread). Rounding
// to bf16 is to nearest even (__floats2bfloat162_rn).
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <cstring>

namespace aisp::ch14 {
namespace {

__device__ __forceinline__ void unpack_bf16x8(const uint4& raw, float (&out)[8]) {
  const unsigned int words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    out[2 * w] = __uint_as_float(words[w] << 16);
    out[2 * w + 1] = __uint_as_float(words[w] & 0xffff0000u);
  }
}

__device__ __forceinline__ unsigned int pack_bf16x2_bits(float lo, float hi) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
  unsigned int bits;
  std::memcpy(&bits, &pair, sizeof(bits));
  return bits;
}

__device__ __forceinline__ uint4 pack_bf16x8(const float (&in)[8]) {
  return make_uint4(pack_bf16x2_bits(in[0], in[1]), pack_bf16x2_bits(in[2], in[3]),
                    pack_bf16x2_bits(in[4], in[5]), pack_bf16x2_bits(in[6], in[7]));
}

}  // namespace
}  // namespace aisp::ch14
