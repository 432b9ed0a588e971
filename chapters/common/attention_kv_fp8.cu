// The FP8 KV cache's setup kernels (attention_kv_fp8.cuh): per-KV-head amax, then the cast.
#include "attention_kv_fp8.cuh"

#include <cstring>

#include "fp8_e4m3.cuh"

namespace aisp::attention {
namespace {

constexpr int kThreads = 256;
constexpr int kChunksPerBlock = 64;  // 16-byte pieces (8 values) per thread and block row span

// One block per (slice of a row range, KV head, sequence): grid-stride over the valid rows'
// 16-byte pieces, block maximum, one atomicMax.
__global__ void __launch_bounds__(kThreads)
    kv_head_amax(const __nv_bfloat16* __restrict__ cache, const int* __restrict__ cache_lengths,
                 DecodeShape shape, unsigned int* __restrict__ amax_bits) {
  const int kv_head = static_cast<int>(blockIdx.y), b = static_cast<int>(blockIdx.z);
  const long long pieces = static_cast<long long>(cache_lengths[b]) * shape.head_dim / 8;
  const uint4* row0 = reinterpret_cast<const uint4*>(
      cache +
      (static_cast<long long>(b) * shape.kv_heads + kv_head) * shape.max_length * shape.head_dim);
  float m = 0.0f;
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < pieces;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    const uint4 v = row0[i];
    const std::uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      __nv_bfloat162 pair;
      std::memcpy(&pair, &words[w], sizeof(pair));
      const float2 f = __bfloat1622float2(pair);
      m = fmaxf(m, fmaxf(fabsf(f.x), fabsf(f.y)));
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  __shared__ float warp_max[kThreads / 32];
  if (threadIdx.x % 32 == 0)
    warp_max[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w)
      m = fmaxf(m, warp_max[w]);
    atomicMax(&amax_bits[kv_head], __float_as_uint(m));
  }
}

// Every element of the cache, valid rows cast, the rest zeroed: 8 values (16 bytes in, 8 out)
// per thread step.
__global__ void __launch_bounds__(kThreads)
    quantize_kv_e4m3(const __nv_bfloat16* __restrict__ cache, const int* __restrict__ cache_lengths,
                     DecodeShape shape, const unsigned int* __restrict__ amax_bits,
                     std::uint8_t* __restrict__ cache_e4m3) {
  const int kv_head = static_cast<int>(blockIdx.y), b = static_cast<int>(blockIdx.z);
  const float scale = common::e4m3_quant_scale(__uint_as_float(amax_bits[kv_head]));
  const long long valid = static_cast<long long>(cache_lengths[b]) * shape.head_dim / 8;
  const long long pieces = static_cast<long long>(shape.max_length) * shape.head_dim / 8;
  const long long first = (static_cast<long long>(b) * shape.kv_heads + kv_head) * pieces;
  const uint4* src = reinterpret_cast<const uint4*>(cache) + first;
  uint2* dst = reinterpret_cast<uint2*>(cache_e4m3) + first;
  for (long long i = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; i < pieces;
       i += static_cast<long long>(gridDim.x) * kThreads) {
    uint2 out = make_uint2(0u, 0u);
    if (i < valid) {
      const uint4 v = src[i];
      const std::uint32_t words[4] = {v.x, v.y, v.z, v.w};
      float f[8];
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        __nv_bfloat162 pair;
        std::memcpy(&pair, &words[w], sizeof(pair));
        const float2 x = __bfloat1622float2(pair);
        f[2 * w] = x.x * scale;
        f[2 * w + 1] = x.y * scale;
      }
      out.x = common::pack_e4m3x4(f[0], f[1], f[2], f[3]);
      out.y = common::pack_e4m3x4(f[4], f[5], f[6], f[7]);
    }
    dst[i] = out;
  }
}

// amax -> dequantization factor, in place (after the cast has read the amax).
__global__ void amax_to_dequant(unsigned int* amax_bits, int kv_heads) {
  const int h = static_cast<int>(threadIdx.x);
  if (h < kv_heads)
    amax_bits[h] = __float_as_uint(common::e4m3_dequant_scale(__uint_as_float(amax_bits[h])));
}

dim3 grid_for(const DecodeShape& shape) {
  const long long pieces_per_row = static_cast<long long>(shape.max_length) * shape.head_dim / 8;
  const long long slices =
      (pieces_per_row + kThreads * kChunksPerBlock - 1) / (kThreads * kChunksPerBlock);
  return dim3(static_cast<unsigned>(slices), static_cast<unsigned>(shape.kv_heads),
              static_cast<unsigned>(shape.batch));
}

}  // namespace

cudaError_t launch_kv_head_amax(const __nv_bfloat16* cache, const int* cache_lengths,
                                const DecodeShape& shape, unsigned int* amax_bits,
                                cudaStream_t stream) {
  if (shape.head_dim % 8 != 0)
    return cudaErrorInvalidValue;
  kv_head_amax<<<grid_for(shape), kThreads, 0, stream>>>(cache, cache_lengths, shape, amax_bits);
  return cudaGetLastError();
}

cudaError_t launch_quantize_kv_e4m3(const __nv_bfloat16* cache, const int* cache_lengths,
                                    const DecodeShape& shape, unsigned int* amax_bits,
                                    std::uint8_t* cache_e4m3, cudaStream_t stream) {
  if (shape.head_dim % 8 != 0 || shape.kv_heads > 1024)
    return cudaErrorInvalidValue;
  quantize_kv_e4m3<<<grid_for(shape), kThreads, 0, stream>>>(cache, cache_lengths, shape, amax_bits,
                                                             cache_e4m3);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    return status;
  amax_to_dequant<<<1, 1024, 0, stream>>>(amax_bits, shape.kv_heads);
  return cudaGetLastError();
}

}  // namespace aisp::attention
