// The kernels behind fp8_quantize.cuh. All are memory-bound: they read the bf16 tensor (2 bytes per
// element; twice for the cooperative per-tensor kernel, the second read partly from L2) and write
// e4m3 (1 byte per element) plus the scales; the ceiling is HBM bandwidth. Loads are 16 bytes
// (8 bf16), stores 8 bytes (8 e4m3).
#include <cooperative_groups.h>

#include <cstring>

#include "fp8_e4m3.cuh"
#include "fp8_quantize.cuh"

namespace aisp::common {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
  return v;
}

// The maximum of v over the block, returned to every thread. scratch: 32 floats of shared memory.
__device__ float block_max(float v, float* scratch) {
  v = warp_max(v);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / 32;
  return warp_max(lane < warps ? scratch[lane] : 0.0f);
}

// Eight bf16 values (one 16-byte load) widened to fp32.
__device__ __forceinline__ void load_bf16x8(const __nv_bfloat16* p, float (&f)[8]) {
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

__device__ __forceinline__ float absmax8(const float (&f)[8]) {
  float m = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i)
    m = fmaxf(m, fabsf(f[i]));
  return m;
}

// Eight scaled values -> eight e4m3 bytes, one 8-byte store.
__device__ __forceinline__ void store_e4m3x8(std::uint8_t* q, const float (&f)[8], float scale) {
  uint2 out;
  out.x = pack_e4m3x4(f[0] * scale, f[1] * scale, f[2] * scale, f[3] * scale);
  out.y = pack_e4m3x4(f[4] * scale, f[5] * scale, f[6] * scale, f[7] * scale);
  *reinterpret_cast<uint2*>(q) = out;
}

__device__ __forceinline__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// The amax of a grid-stride share of x (8-element chunks, then the tail one by one).
__device__ float share_absmax(const __nv_bfloat16* x, std::size_t count) {
  const std::size_t chunks = count / 8;
  float m = 0.0f;
  for (std::size_t c = global_thread(); c < chunks; c += grid_threads()) {
    float f[8];
    load_bf16x8(x + 8 * c, f);
    m = fmaxf(m, absmax8(f));
  }
  for (std::size_t i = 8 * chunks + global_thread(); i < count; i += grid_threads())
    m = fmaxf(m, fabsf(__bfloat162float(x[i])));
  return m;
}

// Casts a grid-stride share of x; `backwards` walks the chunks from the end (the most recently
// read ones first, while L2 still holds them).
__device__ void share_cast(const __nv_bfloat16* x, std::size_t count, float scale, std::uint8_t* q,
                           bool backwards) {
  const std::size_t chunks = count / 8;
  for (std::size_t c = global_thread(); c < chunks; c += grid_threads()) {
    const std::size_t chunk = backwards ? chunks - 1 - c : c;
    float f[8];
    load_bf16x8(x + 8 * chunk, f);
    store_e4m3x8(q + 8 * chunk, f, scale);
  }
  for (std::size_t i = 8 * chunks + global_thread(); i < count; i += grid_threads())
    q[i] = static_cast<std::uint8_t>(pack_e4m3x2(__bfloat162float(x[i]) * scale, 0.0f) & 0xFF);
}

__global__ void __launch_bounds__(kThreads)
    absmax_partials_kernel(const __nv_bfloat16* __restrict__ x, std::size_t count,
                           float* __restrict__ partials) {
  __shared__ float scratch[32];
  const float m = block_max(share_absmax(x, count), scratch);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = m;
}

__global__ void __launch_bounds__(1024)
    scales_from_partials_kernel(const float* __restrict__ partials, int count,
                                float* __restrict__ quant_scale,
                                float* __restrict__ dequant_scale) {
  __shared__ float scratch[32];
  float m = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x))
    m = fmaxf(m, partials[i]);
  m = block_max(m, scratch);
  if (threadIdx.x == 0) {
    if (quant_scale)
      *quant_scale = e4m3_quant_scale(m);
    if (dequant_scale)
      *dequant_scale = e4m3_dequant_scale(m);
  }
}

__global__ void __launch_bounds__(kThreads)
    cast_kernel(const __nv_bfloat16* __restrict__ x, std::size_t count,
                const float* __restrict__ quant_scale, std::uint8_t* __restrict__ q) {
  share_cast(x, count, *quant_scale, q, false);
}

// amax -> grid barrier -> every block reduces the partials itself -> cast. The partials are read
// with ld.global.cg (L2) since other SMs wrote them during this kernel.
__global__ void __launch_bounds__(kThreads)
    quantize_per_tensor_fused_kernel(const __nv_bfloat16* __restrict__ x, std::size_t count,
                                     float* __restrict__ partials, std::uint8_t* __restrict__ q,
                                     float* __restrict__ dequant_scale) {
  __shared__ float scratch[32];
  const float mine = block_max(share_absmax(x, count), scratch);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = mine;
  cooperative_groups::this_grid().sync();
  float m = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(gridDim.x);
       i += static_cast<int>(blockDim.x))
    m = fmaxf(m, __ldcg(partials + i));
  m = block_max(m, scratch);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *dequant_scale = e4m3_dequant_scale(m);
  share_cast(x, count, e4m3_quant_scale(m), q, true);
}

// One row per block: amax over the row, scale, cast (the second read of the row hits L1/L2).
__global__ void __launch_bounds__(kThreads)
    quantize_rows_kernel(const __nv_bfloat16* __restrict__ x, int cols,
                         std::uint8_t* __restrict__ q, float* __restrict__ dequant) {
  __shared__ float scratch[32];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(cols);
  const int chunks = cols / 8;
  float m = 0.0f;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kThreads) {
    float f[8];
    load_bf16x8(x + base + 8 * c, f);
    m = fmaxf(m, absmax8(f));
  }
  m = block_max(m, scratch);
  if (threadIdx.x == 0)
    dequant[blockIdx.x] = e4m3_dequant_scale(m);
  const float scale = e4m3_quant_scale(m);
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kThreads) {
    float f[8];
    load_bf16x8(x + base + 8 * c, f);
    store_e4m3x8(q + base + 8 * c, f, scale);
  }
}

// One warp per 1x128 block: each lane owns 4 consecutive elements.
__global__ void __launch_bounds__(kThreads)
    quantize_blocks_1x128_kernel(const __nv_bfloat16* __restrict__ x, int rows, int cols,
                                 std::uint8_t* __restrict__ q, float* __restrict__ dequant) {
  const int column_blocks = cols / kFp8ScaleBlock;
  const long long unit = static_cast<long long>(blockIdx.x) * (kThreads / 32) +
                         static_cast<long long>(threadIdx.x / 32);
  if (unit >= static_cast<long long>(rows) * column_blocks)
    return;
  const int row = static_cast<int>(unit / column_blocks);
  const int block = static_cast<int>(unit % column_blocks);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::size_t at = static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) +
                         static_cast<std::size_t>(block) * kFp8ScaleBlock + 4 * lane;
  const uint2 raw = __ldg(reinterpret_cast<const uint2*>(x + at));
  __nv_bfloat162 lo, hi;
  std::memcpy(&lo, &raw.x, sizeof(lo));
  std::memcpy(&hi, &raw.y, sizeof(hi));
  const float2 a = __bfloat1622float2(lo), b = __bfloat1622float2(hi);
  const float m = warp_max(fmaxf(fmaxf(fabsf(a.x), fabsf(a.y)), fmaxf(fabsf(b.x), fabsf(b.y))));
  const float scale = e4m3_quant_scale(m);
  *reinterpret_cast<std::uint32_t*>(q + at) =
      pack_e4m3x4(a.x * scale, a.y * scale, b.x * scale, b.y * scale);
  if (lane == 0)
    dequant[Fp8ScaleLayout{Fp8ScaleGranularity::block_1x128, rows, cols}.index(
        row, block * kFp8ScaleBlock)] = e4m3_dequant_scale(m);
}

// One block per 128x128 tile: thread t owns 64 consecutive elements of tile row t / 2.
__global__ void __launch_bounds__(kThreads)
    quantize_blocks_128x128_kernel(const __nv_bfloat16* __restrict__ x, int rows, int cols,
                                   std::uint8_t* __restrict__ q, float* __restrict__ dequant) {
  __shared__ float scratch[32];
  const int t = static_cast<int>(threadIdx.x);
  const int row = static_cast<int>(blockIdx.y) * kFp8ScaleBlock + t / 2;
  const int col = static_cast<int>(blockIdx.x) * kFp8ScaleBlock + (t % 2) * 64;
  const std::size_t at = static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) +
                         static_cast<std::size_t>(col);
  float f[8][8];
  float m = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    load_bf16x8(x + at + 8 * i, f[i]);
    m = fmaxf(m, absmax8(f[i]));
  }
  m = block_max(m, scratch);
  const float scale = e4m3_quant_scale(m);
#pragma unroll
  for (int i = 0; i < 8; ++i)
    store_e4m3x8(q + at + 8 * i, f[i], scale);
  if (t == 0) {
    const Fp8ScaleLayout layout{Fp8ScaleGranularity::block_128x128, rows, cols};
    dequant[layout.index(row, col)] = e4m3_dequant_scale(m);
    if (static_cast<int>(blockIdx.x) == layout.column_blocks() - 1)  // the padding: never read
      for (int pad = layout.column_blocks(); pad < layout.block_ld(); ++pad)
        dequant[static_cast<std::size_t>(blockIdx.y) * layout.block_ld() + pad] = 1.0f;
  }
}

unsigned blocks_for(std::size_t work_items, unsigned cap) {
  const std::size_t blocks = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}

}  // namespace

cudaError_t launch_absmax_partials_bf16(const __nv_bfloat16* x, std::size_t count, float* partials,
                                        cudaStream_t stream) {
  absmax_partials_kernel<<<kAbsmaxPartials, kThreads, 0, stream>>>(x, count, partials);
  return cudaGetLastError();
}

cudaError_t launch_e4m3_scales_from_partials(const float* partials, int count, float* quant_scale,
                                             float* dequant_scale, cudaStream_t stream) {
  scales_from_partials_kernel<<<1, 1024, 0, stream>>>(partials, count, quant_scale, dequant_scale);
  return cudaGetLastError();
}

cudaError_t launch_cast_bf16_to_e4m3(const __nv_bfloat16* x, std::size_t count,
                                     const float* quant_scale, std::uint8_t* q,
                                     cudaStream_t stream) {
  cast_kernel<<<blocks_for(count / 8 + 1, 16384), kThreads, 0, stream>>>(x, count, quant_scale, q);
  return cudaGetLastError();
}

cudaError_t launch_quantize_e4m3_per_tensor(const __nv_bfloat16* x, std::size_t count,
                                            float* partials, float* quant_scale, std::uint8_t* q,
                                            float* dequant_scale, cudaStream_t stream) {
  cudaError_t status = launch_absmax_partials_bf16(x, count, partials, stream);
  if (status == cudaSuccess)
    status = launch_e4m3_scales_from_partials(partials, kAbsmaxPartials, quant_scale, dequant_scale,
                                              stream);
  if (status == cudaSuccess)
    status = launch_cast_bf16_to_e4m3(x, count, quant_scale, q, stream);
  return status;
}

int fused_per_tensor_quantize_blocks(const cudaDeviceProp& device) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, quantize_per_tensor_fused_kernel,
                                                    kThreads, 0) != cudaSuccess ||
      per_sm < 1)
    return 0;
  return per_sm * device.multiProcessorCount;
}

cudaError_t launch_quantize_e4m3_per_tensor_fused(const __nv_bfloat16* x, std::size_t count,
                                                  float* partials, int blocks, std::uint8_t* q,
                                                  float* dequant_scale, cudaStream_t stream) {
  if (blocks < 1)
    return cudaErrorInvalidValue;
  void* args[] = {const_cast<__nv_bfloat16**>(&x), &count, &partials, &q, &dequant_scale};
  return cudaLaunchCooperativeKernel(
      reinterpret_cast<const void*>(quantize_per_tensor_fused_kernel),
      dim3(static_cast<unsigned>(blocks)), dim3(kThreads), args, 0, stream);
}

cudaError_t launch_quantize_e4m3(const __nv_bfloat16* x, int rows, int cols,
                                 Fp8ScaleGranularity granularity, std::uint8_t* q,
                                 float* dequant_scales, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0 || cols % 8 != 0)
    return cudaErrorInvalidValue;
  switch (granularity) {
  case Fp8ScaleGranularity::per_tensor:
    return cudaErrorInvalidValue;
  case Fp8ScaleGranularity::per_row:
    quantize_rows_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(x, cols, q,
                                                                               dequant_scales);
    break;
  case Fp8ScaleGranularity::block_1x128: {
    if (cols % kFp8ScaleBlock != 0)
      return cudaErrorInvalidValue;
    const std::size_t units = static_cast<std::size_t>(rows) * (cols / kFp8ScaleBlock);
    const std::size_t blocks = (units + kThreads / 32 - 1) / (kThreads / 32);
    quantize_blocks_1x128_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        x, rows, cols, q, dequant_scales);
    break;
  }
  case Fp8ScaleGranularity::block_128x128:
    if (cols % kFp8ScaleBlock != 0 || rows % kFp8ScaleBlock != 0)
      return cudaErrorInvalidValue;
    quantize_blocks_128x128_kernel<<<dim3(static_cast<unsigned>(cols / kFp8ScaleBlock),
                                          static_cast<unsigned>(rows / kFp8ScaleBlock)),
                                     kThreads, 0, stream>>>(x, rows, cols, q, dequant_scales);
    break;
  }
  return cudaGetLastError();
}

}  // namespace aisp::common
