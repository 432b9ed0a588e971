// The unfused baseline's elementwise kernels for pair gemm_bias_gelu, as an eager framework runs
// `h = x @ W.T; h += b; y = gelu(h, approximate="tanh")` after the GEMM: one memory-bound kernel
// per operation, each as good as such a kernel gets (16-byte loads and stores, a grid-stride loop
// with two vectors in flight per thread). Each moves its tensor through HBM once each way:
//   add_bias:  reads and writes h (M×N bf16), reads the N-element bias (L2-resident);
//   gelu_tanh: reads h, writes y.
// At 8192×14336 that is 4 × 235 MB = 940 MB, ~0.23 ms at the H200's ~4 TB/s copy ceiling: the
// bytes the fused epilogue does not move. Same GELU function as the fused kernels
// (chapters/common/gemm_epilogue_wgmma.cuh), computed in fp32 from the bf16 input.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../common/bf16_pack.cuh"
#include "../common/gemm_epilogue_wgmma.cuh"
#include "gemm_epilogue_kernels.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ void unpack8(const uint4& v, float (&x)[8]) {
  const std::uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __nv_bfloat162 pair;
    std::memcpy(&pair, &words[i], sizeof(pair));
    x[2 * i] = __low2float(pair);
    x[2 * i + 1] = __high2float(pair);
  }
}

__device__ __forceinline__ uint4 pack8(const float (&x)[8]) {
  return make_uint4(common::pack_bf16x2(x[0], x[1]), common::pack_bf16x2(x[2], x[3]),
                    common::pack_bf16x2(x[4], x[5]), common::pack_bf16x2(x[6], x[7]));
}

// h[r][c] = bf16(h[r][c] + bias[c]), 8 columns per vector (n is a multiple of 8).
__global__ void __launch_bounds__(kThreads)
    add_bias_bf16(uint4* __restrict__ h, const uint4* __restrict__ bias, std::size_t vectors,
                  std::size_t vectors_per_row) {
  const std::size_t stride = std::size_t{gridDim.x} * kThreads;
  for (std::size_t i = blockIdx.x * std::size_t{kThreads} + threadIdx.x; i < vectors;
       i += 2 * stride) {
    const bool second = i + stride < vectors;
    const uint4 v0 = h[i], b0 = __ldg(&bias[i % vectors_per_row]);
    uint4 v1{}, b1{};
    if (second) {
      v1 = h[i + stride];
      b1 = __ldg(&bias[(i + stride) % vectors_per_row]);
    }
    float x[8], b[8];
    unpack8(v0, x);
    unpack8(b0, b);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      x[e] += b[e];
    h[i] = pack8(x);
    if (second) {
      unpack8(v1, x);
      unpack8(b1, b);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        x[e] += b[e];
      h[i + stride] = pack8(x);
    }
  }
}

// out = bf16(GELU_tanh(in)), 8 elements per vector.
__global__ void __launch_bounds__(kThreads)
    gelu_tanh_bf16(const uint4* __restrict__ in, uint4* __restrict__ out, std::size_t vectors) {
  const std::size_t stride = std::size_t{gridDim.x} * kThreads;
  for (std::size_t i = blockIdx.x * std::size_t{kThreads} + threadIdx.x; i < vectors;
       i += 2 * stride) {
    const bool second = i + stride < vectors;
    const uint4 v0 = in[i];
    const uint4 v1 = second ? in[i + stride] : uint4{};
    float x[8];
    unpack8(v0, x);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      x[e] = common::gelu_tanh(x[e]);
    out[i] = pack8(x);
    if (second) {
      unpack8(v1, x);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        x[e] = common::gelu_tanh(x[e]);
      out[i + stride] = pack8(x);
    }
  }
}

unsigned grid_for(std::size_t vectors) {
  // Enough blocks to fill the GPU several times over; the grid-stride loop covers the rest.
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess)
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t wanted = (vectors + 2 * kThreads - 1) / (2 * kThreads);
  return static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(wanted, static_cast<std::size_t>(sms) * 16)));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t launch_add_bias_bf16(__nv_bfloat16* h, const __nv_bfloat16* bias, int m, int n,
                                 cudaStream_t stream) {
  if (m <= 0 || n <= 0 || n % 8 != 0 || !aligned16(h) || !aligned16(bias))
    return cudaErrorInvalidValue;
  const std::size_t vectors = static_cast<std::size_t>(m) * static_cast<std::size_t>(n) / 8;
  add_bias_bf16<<<grid_for(vectors), kThreads, 0, stream>>>(
      reinterpret_cast<uint4*>(h), reinterpret_cast<const uint4*>(bias), vectors,
      static_cast<std::size_t>(n) / 8);
  return cudaGetLastError();
}

cudaError_t launch_gelu_tanh_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t count,
                                  cudaStream_t stream) {
  if (count == 0 || count % 8 != 0 || !aligned16(in) || !aligned16(out))
    return cudaErrorInvalidValue;
  const std::size_t vectors = count / 8;
  gelu_tanh_bf16<<<grid_for(vectors), kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out), vectors);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
