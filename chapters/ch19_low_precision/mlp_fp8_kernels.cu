// SwiGLU between the MLP's GEMMs, alone or fused with the FP8 quantization of its output
// (mlp_fp8_kernels.cuh). Memory-bound: each reads gate_up (4·T·f bytes of bf16) and writes h
// (2·T·f bytes in bf16, T·f in e4m3); the fused dynamic kernel reads gate_up twice. Ceiling: HBM
// bandwidth. Every thread handles 8 consecutive columns: two 16-byte loads (gate and up), one
// 16-byte (bf16) or 8-byte (e4m3) store.
#include <cooperative_groups.h>

#include <cstddef>
#include <cstring>

#include "../common/fp8_e4m3.cuh"
#include "mlp_fp8_kernels.cuh"

namespace aisp::ch19 {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ void load8(const __nv_bfloat16* p, float (&f)[8]) {
  const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
  const unsigned words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __nv_bfloat162 pair;
    std::memcpy(&pair, &words[i], sizeof(pair));
    const float2 v = __bfloat1622float2(pair);
    f[2 * i] = v.x;
    f[2 * i + 1] = v.y;
  }
}

// h for the 8 columns of chunk c (row-major T × f/8 chunks), in fp32.
__device__ __forceinline__ void swiglu8(const __nv_bfloat16* gate_up, int f, std::size_t c,
                                        float (&h)[8], std::size_t* out_offset) {
  const std::size_t per_row = static_cast<std::size_t>(f / 8);
  const std::size_t row = c / per_row, col = 8 * (c % per_row);
  const __nv_bfloat16* gate = gate_up + row * 2 * static_cast<std::size_t>(f) + col;
  float g[8], u[8];
  load8(gate, g);
  load8(gate + f, u);
#pragma unroll
  for (int i = 0; i < 8; ++i)
    h[i] = g[i] / (1.0f + __expf(-g[i])) * u[i];
  *out_offset = row * static_cast<std::size_t>(f) + col;
}

__device__ __forceinline__ std::size_t first_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t all_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

__device__ __forceinline__ void store_e4m3x8(std::uint8_t* q, const float (&h)[8], float scale) {
  uint2 out;
  out.x = common::pack_e4m3x4(h[0] * scale, h[1] * scale, h[2] * scale, h[3] * scale);
  out.y = common::pack_e4m3x4(h[4] * scale, h[5] * scale, h[6] * scale, h[7] * scale);
  *reinterpret_cast<uint2*>(q) = out;
}

__global__ void __launch_bounds__(kThreads)
    swiglu_bf16_kernel(const __nv_bfloat16* __restrict__ gate_up, std::size_t chunks, int f,
                       __nv_bfloat16* __restrict__ h_out) {
  for (std::size_t c = first_thread(); c < chunks; c += all_threads()) {
    float h[8];
    std::size_t at = 0;
    swiglu8(gate_up, f, c, h, &at);
    __nv_bfloat162 pairs[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      pairs[i] = __floats2bfloat162_rn(h[2 * i], h[2 * i + 1]);
    uint4 out;
    std::memcpy(&out, pairs, sizeof(out));
    *reinterpret_cast<uint4*>(h_out + at) = out;
  }
}

__global__ void __launch_bounds__(kThreads)
    swiglu_e4m3_kernel(const __nv_bfloat16* __restrict__ gate_up, std::size_t chunks, int f,
                       const float* __restrict__ quant_scale, std::uint8_t* __restrict__ q) {
  const float scale = *quant_scale;
  for (std::size_t c = first_thread(); c < chunks; c += all_threads()) {
    float h[8];
    std::size_t at = 0;
    swiglu8(gate_up, f, c, h, &at);
    store_e4m3x8(q + at, h, scale);
  }
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
  return v;
}

__device__ float block_max(float v, float* scratch) {
  v = warp_max(v);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  return warp_max(lane < static_cast<int>(blockDim.x) / 32 ? scratch[lane] : 0.0f);
}

// Pass 1: amax of h; grid barrier; every block reduces the partials (read through L2: other SMs
// wrote them); pass 2: h again, from the last chunk back (the most recently read gate_up first,
// while L2 may still hold it), scaled and cast.
__global__ void __launch_bounds__(kThreads)
    swiglu_e4m3_fused_kernel(const __nv_bfloat16* __restrict__ gate_up, std::size_t chunks, int f,
                             float* __restrict__ partials, std::uint8_t* __restrict__ q,
                             float* __restrict__ dequant_scale) {
  __shared__ float scratch[32];
  float m = 0.0f;
  for (std::size_t c = first_thread(); c < chunks; c += all_threads()) {
    float h[8];
    std::size_t at = 0;
    swiglu8(gate_up, f, c, h, &at);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      m = fmaxf(m, fabsf(h[i]));
  }
  m = block_max(m, scratch);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = m;
  cooperative_groups::this_grid().sync();
  float amax = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(gridDim.x);
       i += static_cast<int>(blockDim.x))
    amax = fmaxf(amax, __ldcg(partials + i));
  amax = block_max(amax, scratch);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *dequant_scale = common::e4m3_dequant_scale(amax);
  const float scale = common::e4m3_quant_scale(amax);
  for (std::size_t c = first_thread(); c < chunks; c += all_threads()) {
    float h[8];
    std::size_t at = 0;
    swiglu8(gate_up, f, chunks - 1 - c, h, &at);
    store_e4m3x8(q + at, h, scale);
  }
}

unsigned grid_for(std::size_t chunks) {
  const std::size_t blocks = (chunks + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 65536 ? 65536 : blocks));
}

std::size_t chunks_of(int tokens, int f) {
  return static_cast<std::size_t>(tokens) * static_cast<std::size_t>(f / 8);
}

}  // namespace

cudaError_t launch_swiglu_bf16(const __nv_bfloat16* gate_up, int tokens, int f, __nv_bfloat16* h,
                               cudaStream_t stream) {
  if (tokens <= 0 || f <= 0 || f % 8 != 0)
    return cudaErrorInvalidValue;
  swiglu_bf16_kernel<<<grid_for(chunks_of(tokens, f)), kThreads, 0, stream>>>(
      gate_up, chunks_of(tokens, f), f, h);
  return cudaGetLastError();
}

cudaError_t launch_swiglu_e4m3(const __nv_bfloat16* gate_up, int tokens, int f,
                               const float* quant_scale, std::uint8_t* q, cudaStream_t stream) {
  if (tokens <= 0 || f <= 0 || f % 8 != 0)
    return cudaErrorInvalidValue;
  swiglu_e4m3_kernel<<<grid_for(chunks_of(tokens, f)), kThreads, 0, stream>>>(
      gate_up, chunks_of(tokens, f), f, quant_scale, q);
  return cudaGetLastError();
}

int swiglu_e4m3_fused_blocks(const cudaDeviceProp& device) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, swiglu_e4m3_fused_kernel, kThreads,
                                                    0) != cudaSuccess ||
      per_sm < 1)
    return 0;
  return per_sm * device.multiProcessorCount;
}

cudaError_t launch_swiglu_e4m3_dynamic_fused(const __nv_bfloat16* gate_up, int tokens, int f,
                                             float* partials, int blocks, std::uint8_t* q,
                                             float* dequant_scale, cudaStream_t stream) {
  if (tokens <= 0 || f <= 0 || f % 8 != 0 || blocks < 1)
    return cudaErrorInvalidValue;
  std::size_t chunks = chunks_of(tokens, f);
  void* args[] = {
      const_cast<__nv_bfloat16**>(&gate_up), &chunks, &f, &partials, &q, &dequant_scale};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(swiglu_e4m3_fused_kernel),
                                     dim3(static_cast<unsigned>(blocks)), dim3(kThreads), args, 0,
                                     stream);
}

}  // namespace aisp::ch19
