// LayerNorm over bf16 rows of 4096: one block of 128 threads per row, 4 chunks of 8 bf16 per
// thread held in registers, so x is read once; mean and variance by two block sums; y written
// once. Bytes: 4 per element (2 read, 2 written); ~8 FLOPs per element. Ceiling: HBM bandwidth.
#include "layer_norm_bf16.cuh"

#include <aisp/check.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "bf16x8.cuh"

namespace aisp::ch14 {
namespace {

constexpr int kThreads = 128;

// Sum over the block, the total in every thread. The trailing barrier lets the caller reuse
// `scratch` for the next sum.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0)
    scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kThreads / 32; ++w)
    total += scratch[w];
  __syncthreads();
  return total;
}

template <int kCols>
__global__ void __launch_bounds__(kThreads)
    layer_norm_rows(const uint4* __restrict__ x, const uint4* __restrict__ gamma,
                    const uint4* __restrict__ beta, uint4* __restrict__ y, float eps) {
  static_assert(kCols % (8 * kThreads) == 0, "whole chunks of 8 per thread");
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kChunks = kChunksPerRow / kThreads;
  __shared__ float scratch[kThreads / 32];
  const std::size_t row_start = static_cast<std::size_t>(blockIdx.x) * kChunksPerRow;

  float v[kChunks][8];
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
    unpack_bf16x8(x[row_start + c * kThreads + threadIdx.x], v[c]);
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
#pragma unroll
    for (int e = 0; e < 8; ++e)
      sum += v[c][e];
  const float mean = block_sum(sum, scratch) / static_cast<float>(kCols);
  float squares = 0.0f;
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float d = v[c][e] - mean;
      squares += d * d;
    }
  const float rstd = rsqrtf(block_sum(squares, scratch) / static_cast<float>(kCols) + eps);
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int chunk = c * kThreads + static_cast<int>(threadIdx.x);
    float g[8], b[8], out[8];
    unpack_bf16x8(gamma[chunk], g);
    unpack_bf16x8(beta[chunk], b);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      out[e] = (v[c][e] - mean) * rstd * g[e] + b[e];
    y[row_start + chunk] = pack_bf16x8(out);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void launch_layer_norm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                            const __nv_bfloat16* beta, __nv_bfloat16* y, int rows, int cols,
                            float eps, cudaStream_t stream) {
  if (cols != kLayerNormCols)
    throw std::invalid_argument("launch_layer_norm_bf16: rows of " + std::to_string(cols) +
                                " have no kernel; add an instantiation for that length in "
                                "layer_norm_bf16.cu (built: " +
                                std::to_string(kLayerNormCols) + ")");
  if (!aligned16(x) || !aligned16(gamma) || !aligned16(beta) || !aligned16(y))
    throw std::invalid_argument("launch_layer_norm_bf16: x, gamma, beta and y must be 16-byte "
                                "aligned (16-byte vector accesses)");
  layer_norm_rows<kLayerNormCols><<<rows, kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(x), reinterpret_cast<const uint4*>(gamma),
      reinterpret_cast<const uint4*>(beta), reinterpret_cast<uint4*>(y), eps);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::ch14
