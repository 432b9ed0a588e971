// RMSNorm, one kernel body for both storage formats of its input (rmsnorm_storage_kernel.cuh).
// Memory-bound: per element it reads x (4 bytes in fp32, 2 in bf16) and writes y (2 bytes, bf16);
// gamma (one row) stays in L1/L2. One block of 256 threads per row: each thread loads its share
// of the row with 16-byte loads into registers, the block reduces the sum of squares, and the
// thread scales and stores the values it already holds (x is read once). Ceiling: HBM bandwidth.
#include <cstring>

#include "rmsnorm_storage_kernel.cuh"

namespace aisp::ch19 {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ void load8(const float* p, float (&v)[8]) {
  const float4 a = __ldg(reinterpret_cast<const float4*>(p));
  const float4 b = __ldg(reinterpret_cast<const float4*>(p) + 1);
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
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

// Each thread holds kChunks chunks of 8 consecutive values, chunk c at column 8·(c·256 + tid).
template <class T, int kChunks>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, int hidden, float eps,
                   __nv_bfloat16* __restrict__ y) {
  __shared__ float warp_sums[kThreads / 32];
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(hidden);
  const int tid = static_cast<int>(threadIdx.x);
  float v[kChunks][8];
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    load8(x + row + 8 * (c * kThreads + tid), v[c]);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      sum = fmaf(v[c][i], v[c][i], sum);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  if (tid % 32 == 0)
    warp_sums[tid / 32] = sum;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w)
    total += warp_sums[w];
  const float rstd = rsqrtf(total / static_cast<float>(hidden) + eps);
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    float g[8];
    load8(gamma + 8 * (c * kThreads + tid), g);
    __nv_bfloat162 out[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      out[i] = __floats2bfloat162_rn(v[c][2 * i] * rstd * g[2 * i],
                                     v[c][2 * i + 1] * rstd * g[2 * i + 1]);
    uint4 packed;
    std::memcpy(&packed, out, sizeof(packed));
    *reinterpret_cast<uint4*>(y + row + 8 * (c * kThreads + tid)) = packed;
  }
}

template <class T>
cudaError_t launch(const T* x, const T* gamma, int tokens, int hidden, float eps, __nv_bfloat16* y,
                   cudaStream_t stream) {
  if (tokens <= 0 || hidden <= 0 || hidden % (8 * kThreads) != 0 || hidden > 16384)
    return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(tokens));
  switch (hidden / (8 * kThreads)) {
  case 1:
    rmsnorm_kernel<T, 1><<<grid, kThreads, 0, stream>>>(x, gamma, hidden, eps, y);
    break;
  case 2:
    rmsnorm_kernel<T, 2><<<grid, kThreads, 0, stream>>>(x, gamma, hidden, eps, y);
    break;
  case 4:
    rmsnorm_kernel<T, 4><<<grid, kThreads, 0, stream>>>(x, gamma, hidden, eps, y);
    break;
  case 8:
    rmsnorm_kernel<T, 8><<<grid, kThreads, 0, stream>>>(x, gamma, hidden, eps, y);
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_rmsnorm_f32_storage(const float* x, const float* gamma, int tokens, int hidden,
                                       float eps, __nv_bfloat16* y, cudaStream_t stream) {
  return launch(x, gamma, tokens, hidden, eps, y, stream);
}

cudaError_t launch_rmsnorm_bf16_storage(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                                        int tokens, int hidden, float eps, __nv_bfloat16* y,
                                        cudaStream_t stream) {
  return launch(x, gamma, tokens, hidden, eps, y, stream);
}

}  // namespace aisp::ch19
