// The softmax of the unfused attention baseline: one row of materialised FP32 scores in, one row
// of BF16 probabilities out (the A operand of the cuBLAS P·V product that follows).
// One 256-thread block per row of 4096 scores: each thread holds 16 of them in registers (four
// float4), so the row is read from memory once; max and sum are block reductions (warp shuffles,
// then one value per warp through shared memory). Bytes per row: 4096·4 read + 4096·2 written.
// Memory-bound: ceiling HBM bandwidth.
#include <cuda_bf16.h>

#include <stdexcept>
#include <string>

#include "attention_kernels.cuh"

namespace aisp::ch18 {
namespace {

constexpr int kSoftmaxThreads = 256;
constexpr int kSoftmaxWarps = kSoftmaxThreads / 32;

template <bool kMax>
__device__ __forceinline__ float block_reduce(float value, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    value = kMax ? fmaxf(value, other) : value + other;
  }
  const int warp = static_cast<int>(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0)
    scratch[warp] = value;
  __syncthreads();
  value = scratch[0];
  for (int w = 1; w < kSoftmaxWarps; ++w)
    value = kMax ? fmaxf(value, scratch[w]) : value + scratch[w];
  __syncthreads();  // scratch is reused by the next reduction
  return value;
}

template <int kVectorsPerThread>
__global__ void __launch_bounds__(kSoftmaxThreads)
    row_softmax_to_bf16(const float* __restrict__ scores, __nv_bfloat16* __restrict__ probs) {
  constexpr int kCols = kVectorsPerThread * 4 * kSoftmaxThreads;
  __shared__ float scratch[kSoftmaxWarps];
  const long long row = blockIdx.x;
  const float4* in = reinterpret_cast<const float4*>(scores + row * kCols);
  float4 x[kVectorsPerThread];
  float row_max = -INFINITY;
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    x[i] = in[threadIdx.x + i * kSoftmaxThreads];
    row_max = fmaxf(row_max, fmaxf(fmaxf(x[i].x, x[i].y), fmaxf(x[i].z, x[i].w)));
  }
  row_max = block_reduce<true>(row_max, scratch);
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    x[i].x = __expf(x[i].x - row_max);
    x[i].y = __expf(x[i].y - row_max);
    x[i].z = __expf(x[i].z - row_max);
    x[i].w = __expf(x[i].w - row_max);
    sum += (x[i].x + x[i].y) + (x[i].z + x[i].w);
  }
  const float inv_sum = 1.0f / block_reduce<false>(sum, scratch);
  __nv_bfloat162* out = reinterpret_cast<__nv_bfloat162*>(probs + row * kCols);
#pragma unroll
  for (int i = 0; i < kVectorsPerThread; ++i) {
    const int v = static_cast<int>(threadIdx.x) + i * kSoftmaxThreads;
    out[2 * v] = __floats2bfloat162_rn(x[i].x * inv_sum, x[i].y * inv_sum);
    out[2 * v + 1] = __floats2bfloat162_rn(x[i].z * inv_sum, x[i].w * inv_sum);
  }
}

}  // namespace

void launch_row_softmax(const float* scores, __nv_bfloat16* probs, long long rows, int cols,
                        cudaStream_t stream) {
  if (cols != 4 * 4 * kSoftmaxThreads)
    throw std::invalid_argument("row softmax: built for rows of 4096 scores, got " +
                                std::to_string(cols) + " (add an instantiation)");
  row_softmax_to_bf16<4>
      <<<static_cast<unsigned>(rows), kSoftmaxThreads, 0, stream>>>(scores, probs);
}

}  // namespace aisp::ch18
