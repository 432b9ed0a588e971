// The elementwise kernels of pair gemm_relu, each one memory-bound pass:
//   relu_f32_inplace: C read and written once (8 bytes per element), the unfused baseline's
//     second kernel and the bytes the fused epilogue saves;
//   convert_f32_to_bf16: what autocast does to an FP32 operand before a BF16 GEMM, 4 bytes read
//     and 2 written per element.
// 16-byte loads (two vectors in flight per thread), a grid-stride loop; ceiling: HBM bandwidth.
#include <algorithm>
#include <cstdint>

#include "../common/bf16_pack.cuh"
#include "gemm_relu_kernels.cuh"

namespace aisp::ch09 {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) relu_f32_inplace(float4* x, std::size_t vectors) {
  const std::size_t stride = std::size_t{gridDim.x} * kThreads;
  for (std::size_t i = blockIdx.x * std::size_t{kThreads} + threadIdx.x; i < vectors;
       i += 2 * stride) {
    const bool second = i + stride < vectors;
    float4 v0 = x[i];
    float4 v1 = second ? x[i + stride] : float4{};
    v0 = make_float4(fmaxf(v0.x, 0.f), fmaxf(v0.y, 0.f), fmaxf(v0.z, 0.f), fmaxf(v0.w, 0.f));
    x[i] = v0;
    if (second) {
      v1 = make_float4(fmaxf(v1.x, 0.f), fmaxf(v1.y, 0.f), fmaxf(v1.z, 0.f), fmaxf(v1.w, 0.f));
      x[i + stride] = v1;
    }
  }
}

// Eight floats (two float4) in, eight bf16 (one uint4) out.
__global__ void __launch_bounds__(kThreads)
    convert_f32_to_bf16(const float4* __restrict__ in, uint4* __restrict__ out,
                        std::size_t vectors) {
  const std::size_t stride = std::size_t{gridDim.x} * kThreads;
  for (std::size_t i = blockIdx.x * std::size_t{kThreads} + threadIdx.x; i < vectors; i += stride) {
    const float4 lo = in[2 * i], hi = in[2 * i + 1];
    out[i] = make_uint4(common::pack_bf16x2(lo.x, lo.y), common::pack_bf16x2(lo.z, lo.w),
                        common::pack_bf16x2(hi.x, hi.y), common::pack_bf16x2(hi.z, hi.w));
  }
}

unsigned grid_for(std::size_t work_items) {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess)
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t wanted = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(wanted, static_cast<std::size_t>(sms) * 16)));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t launch_relu_f32_inplace(float* x, std::size_t count, cudaStream_t stream) {
  if (count == 0 || count % 4 != 0 || !aligned16(x))
    return cudaErrorInvalidValue;
  const std::size_t vectors = count / 4;
  relu_f32_inplace<<<grid_for(vectors / 2), kThreads, 0, stream>>>(reinterpret_cast<float4*>(x),
                                                                   vectors);
  return cudaGetLastError();
}

cudaError_t launch_convert_f32_to_bf16(const float* in, __nv_bfloat16* out, std::size_t count,
                                       cudaStream_t stream) {
  if (count == 0 || count % 8 != 0 || !aligned16(in) || !aligned16(out))
    return cudaErrorInvalidValue;
  const std::size_t vectors = count / 8;
  convert_f32_to_bf16<<<grid_for(vectors), kThreads, 0, stream>>>(
      reinterpret_cast<const float4*>(in), reinterpret_cast<uint4*>(out), vectors);
  return cudaGetLastError();
}

}  // namespace aisp::ch09
