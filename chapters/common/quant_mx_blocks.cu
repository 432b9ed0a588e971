// The quantizers of quant_mx_blocks.cuh: one thread per scaling block (32 elements for MXFP8, 16
// for NVFP4), which reads its bf16 values (16-byte loads), finds their amax, writes its factor
// into the tiled layout and its elements. Memory-bound, setup-time work. Not yet run anywhere
// (no Blackwell GPU in this project); the layouts follow cuBLASLt's documentation.
#include <cuda_fp8.h>

#include <cstring>

#include "quant_mx_blocks.cuh"

namespace aisp::common {
namespace {

constexpr int kThreads = 256;

// e2m1 code (sign bit 3, magnitude code 0..7 for 0, 0.5, 1, 1.5, 2, 3, 4, 6) of v, rounded to
// nearest with ties to the even code, saturating at 6. Written out rather than taken from
// cuda_fp4.h, whose host half does not compile warning-free.
__device__ __forceinline__ unsigned e2m1_code(float v) {
  const unsigned sign = v < 0.0f ? 8u : 0u;
  const float a = fabsf(v);
  unsigned c;
  if (a <= 0.25f)
    c = 0;
  else if (a < 0.75f)
    c = 1;
  else if (a <= 1.25f)
    c = 2;
  else if (a < 1.75f)
    c = 3;
  else if (a <= 2.5f)
    c = 4;
  else if (a < 3.5f)
    c = 5;
  else if (a <= 5.0f)
    c = 6;
  else
    c = 7;
  return sign | c;
}

__device__ __forceinline__ void load8(const __nv_bfloat16* p, float (&v)[8]) {
  const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
  const unsigned words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __nv_bfloat162 pair;
    std::memcpy(&pair, &words[i], sizeof(pair));
    const float2 f = __bfloat1622float2(pair);
    v[2 * i] = f.x;
    v[2 * i + 1] = f.y;
  }
}

__global__ void __launch_bounds__(kThreads)
    quantize_mxfp8_kernel(const __nv_bfloat16* __restrict__ x, int rows, int cols,
                          std::uint8_t* __restrict__ q, std::uint8_t* __restrict__ factors) {
  const int blocks_per_row = cols / 32;
  const long long unit = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (unit >= static_cast<long long>(rows) * blocks_per_row)
    return;
  const int row = static_cast<int>(unit / blocks_per_row),
            block = static_cast<int>(unit % blocks_per_row);
  const std::size_t at =
      static_cast<std::size_t>(row) * cols + static_cast<std::size_t>(block) * 32;
  float v[4][8];
  float amax = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    load8(x + at + 8 * i, v[i]);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      amax = fmaxf(amax, fabsf(v[i][j]));
  }
  // The smallest power of two with amax / 2^e <= 448 (rounded up: nothing saturates).
  const __nv_fp8_storage_t e8 =
      amax > 0.0f ? __nv_cvt_float_to_e8m0(amax / 448.0f, __NV_SATFINITE, cudaRoundPosInf) : 127;
  const float factor = e8 == 0 ? 0x1.0p-127f : __uint_as_float(static_cast<unsigned>(e8) << 23);
  const float inverse = 1.0f / factor;
  factors[block_scale_tiled_index(row, block, blocks_per_row)] = e8;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    uint2 out;
    unsigned words[2];
#pragma unroll
    for (int w = 0; w < 2; ++w) {
      const unsigned lo = __nv_cvt_float2_to_fp8x2(
          make_float2(v[i][4 * w] * inverse, v[i][4 * w + 1] * inverse), __NV_SATFINITE, __NV_E4M3);
      const unsigned hi = __nv_cvt_float2_to_fp8x2(
          make_float2(v[i][4 * w + 2] * inverse, v[i][4 * w + 3] * inverse), __NV_SATFINITE,
          __NV_E4M3);
      words[w] = lo | (hi << 16);
    }
    out.x = words[0];
    out.y = words[1];
    *reinterpret_cast<uint2*>(q + at + 8 * i) = out;
  }
}

__global__ void __launch_bounds__(kThreads)
    quantize_nvfp4_kernel(const __nv_bfloat16* __restrict__ x, int rows, int cols,
                          const float* __restrict__ tensor_amax, std::uint8_t* __restrict__ q,
                          std::uint8_t* __restrict__ factors) {
  const int blocks_per_row = cols / 16;
  const long long unit = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (unit >= static_cast<long long>(rows) * blocks_per_row)
    return;
  const int row = static_cast<int>(unit / blocks_per_row),
            block = static_cast<int>(unit % blocks_per_row);
  const std::size_t at =
      static_cast<std::size_t>(row) * cols + static_cast<std::size_t>(block) * 16;
  float v[2][8];
  float amax = 0.0f;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    load8(x + at + 8 * i, v[i]);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      amax = fmaxf(amax, fabsf(v[i][j]));
  }
  const float g = nvfp4_tensor_factor(*tensor_amax);
  // The block factor in e4m3 (unsigned use: it is never negative), then the element scale it
  // actually gives after that rounding.
  const __nv_fp8_storage_t s8 = __nv_cvt_float_to_fp8(amax / (6.0f * g), __NV_SATFINITE, __NV_E4M3);
  const float block_factor = static_cast<float>(__half(__nv_cvt_fp8_to_halfraw(s8, __NV_E4M3)));
  const float inverse = block_factor > 0.0f ? 1.0f / (block_factor * g) : 0.0f;
  factors[block_scale_tiled_index(row, block, blocks_per_row)] = s8;
  unsigned words[2] = {0u, 0u};
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int p = 0; p < 4; ++p) {
      const unsigned pair =
          e2m1_code(v[i][2 * p] * inverse) | (e2m1_code(v[i][2 * p + 1] * inverse) << 4);
      words[i] |= pair << (8 * p);
    }
  *reinterpret_cast<uint2*>(q + at / 2) = make_uint2(words[0], words[1]);
}

unsigned grid_for(long long units) {
  return static_cast<unsigned>((units + kThreads - 1) / kThreads);
}

}  // namespace

cudaError_t launch_quantize_mxfp8(const __nv_bfloat16* x, int rows, int cols, std::uint8_t* q,
                                  std::uint8_t* factors, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0 || rows % 128 != 0 || cols % 128 != 0)
    return cudaErrorInvalidValue;
  const long long units = static_cast<long long>(rows) * (cols / 32);
  quantize_mxfp8_kernel<<<grid_for(units), kThreads, 0, stream>>>(x, rows, cols, q, factors);
  return cudaGetLastError();
}

cudaError_t launch_quantize_nvfp4(const __nv_bfloat16* x, int rows, int cols, const float* amax,
                                  std::uint8_t* q, std::uint8_t* factors, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0 || rows % 128 != 0 || cols % 128 != 0)
    return cudaErrorInvalidValue;
  const long long units = static_cast<long long>(rows) * (cols / 16);
  quantize_nvfp4_kernel<<<grid_for(units), kThreads, 0, stream>>>(x, rows, cols, amax, q, factors);
  return cudaGetLastError();
}

}  // namespace aisp::common
