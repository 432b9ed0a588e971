// The pipeline's GELU passes (pipeline_gelu.cuh): one thread per 8 bf16 elements (one 16-byte
// load of each operand, one 16-byte store), grid-stride so any count fits one launch. The math in
// fp32: erff for Φ, expf for φ.
#include "pipeline_gelu.cuh"

#include <aisp/check.hpp>

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace aisp::ch04 {
namespace {

constexpr int kThreads = 256;
constexpr int kPerVector = 8;  // bf16 elements in one 16-byte access
constexpr float kInverseSqrt2 = 0.70710678118654752f;
constexpr float kInverseSqrt2Pi = 0.39894228040143268f;

union Bf16x8 {
  uint4 raw;
  __nv_bfloat16 v[kPerVector];
};

__device__ __forceinline__ float normal_cdf(float z) {
  return 0.5f * (1.0f + erff(z * kInverseSqrt2));
}

__global__ void __launch_bounds__(kThreads)
    gelu_forward_kernel(const uint4* z, uint4* a, std::size_t vectors) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; i < vectors;
       i += static_cast<std::size_t>(gridDim.x) * kThreads) {
    Bf16x8 in, out;
    in.raw = z[i];
#pragma unroll
    for (int k = 0; k < kPerVector; ++k) {
      const float x = __bfloat162float(in.v[k]);
      out.v[k] = __float2bfloat16(x * normal_cdf(x));
    }
    a[i] = out.raw;
  }
}

__global__ void __launch_bounds__(kThreads)
    gelu_backward_kernel(const uint4* z, const uint4* da, uint4* dz, std::size_t vectors) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x; i < vectors;
       i += static_cast<std::size_t>(gridDim.x) * kThreads) {
    Bf16x8 pre, grad, out;
    pre.raw = z[i];
    grad.raw = da[i];
#pragma unroll
    for (int k = 0; k < kPerVector; ++k) {
      const float x = __bfloat162float(pre.v[k]);
      const float slope = normal_cdf(x) + x * kInverseSqrt2Pi * expf(-0.5f * x * x);
      out.v[k] = __float2bfloat16(__bfloat162float(grad.v[k]) * slope);
    }
    dz[i] = out.raw;
  }
}

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

void check_operands(const char* who, std::initializer_list<const void*> pointers,
                    std::size_t count) {
  bool all_aligned = true;
  for (const void* pointer : pointers)
    all_aligned = all_aligned && aligned16(pointer);
  if (count % kPerVector != 0 || !all_aligned)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(count) +
                                " elements; needs a multiple of 8 and 16-byte aligned operands "
                                "(8 bf16 per access): give whole rows of a multiple-of-8 width");
}

// At most 1024 blocks of 256 threads, 8 per SM of a 128-SM GPU: enough to fill any current GPU
// with 16 bytes in flight per operand per thread; the grid-stride loop takes the rest.
unsigned blocks_for(std::size_t vectors) {
  constexpr std::size_t kMaxBlocks = 1024;
  const std::size_t needed = (vectors + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::min(needed, kMaxBlocks));
}

}  // namespace

void launch_gelu_forward(const __nv_bfloat16* z, __nv_bfloat16* a, std::size_t count,
                         cudaStream_t stream) {
  check_operands("launch_gelu_forward", {z, a}, count);
  const std::size_t vectors = count / kPerVector;
  if (vectors == 0)
    return;
  gelu_forward_kernel<<<blocks_for(vectors), kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(z), reinterpret_cast<uint4*>(a), vectors);
  AISP_CHECK_LAUNCH();
}

void launch_gelu_backward(const __nv_bfloat16* z, const __nv_bfloat16* da, __nv_bfloat16* dz,
                          std::size_t count, cudaStream_t stream) {
  check_operands("launch_gelu_backward", {z, da, dz}, count);
  const std::size_t vectors = count / kPerVector;
  if (vectors == 0)
    return;
  gelu_backward_kernel<<<blocks_for(vectors), kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(z), reinterpret_cast<const uint4*>(da),
      reinterpret_cast<uint4*>(dz), vectors);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::ch04
