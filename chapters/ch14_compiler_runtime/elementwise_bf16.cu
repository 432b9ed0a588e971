// One map kernel, instantiated once per operation: each thread loads two 16-byte vectors of its
// first operand (both issued before use), applies the operation in fp32 (loading any second
// operand as it goes) and stores two 16-byte vectors; one pass, no grid-stride loop. Bytes per
// element: 2 read + 2 written, plus 2 for a second bf16 operand or 1 for a mask byte; a few FLOPs
// (GELU: ~20). Ceiling: HBM bandwidth.
#include "elementwise_bf16.cuh"

#include <aisp/check.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "bf16x8.cuh"
#include "fused_ln_gelu_mask_source.cuh"  // aisp_gelu_erf: the same GELU as the fused kernels

namespace aisp::ch14 {
namespace {

constexpr int kThreads = 256;
constexpr int kChunksPerThread = 2;
constexpr std::size_t kChunksPerBlock = std::size_t{kThreads} * kChunksPerThread;

template <class Op>
__global__ void __launch_bounds__(kThreads)
    map_bf16x8(const uint4* in, uint4* out, std::size_t chunks, Op op) {  // out may be in
  const std::size_t base = blockIdx.x * kChunksPerBlock + threadIdx.x;
  uint4 raw[kChunksPerThread];
#pragma unroll
  for (int u = 0; u < kChunksPerThread; ++u) {
    const std::size_t i = base + u * kThreads;
    if (i < chunks)
      raw[u] = in[i];
  }
#pragma unroll
  for (int u = 0; u < kChunksPerThread; ++u) {
    const std::size_t i = base + u * kThreads;
    if (i < chunks) {
      float v[8];
      unpack_bf16x8(raw[u], v);
      op(i, v);
      out[i] = pack_bf16x8(v);
    }
  }
}

struct GeluErf {
  __device__ void operator()(std::size_t, float (&v)[8]) const {
#pragma unroll
    for (int e = 0; e < 8; ++e)
      v[e] = aisp_gelu_erf(v[e]);
  }
};

struct GeluTanh {
  __device__ void operator()(std::size_t, float (&v)[8]) const {
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float h = v[e];
      v[e] = 0.5f * h * (1.0f + tanhf(0.79788456080286536f * (h + 0.044715f * h * h * h)));
    }
  }
};

struct ApplyMask {
  const uint2* mask;
  __device__ void operator()(std::size_t i, float (&v)[8]) const {
    const uint2 m = mask[i];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const unsigned int word = e < 4 ? m.x : m.y;
      if (((word >> (8 * (e % 4))) & 0xffu) == 0u)
        v[e] = 0.0f;
    }
  }
};

struct AddBias {
  const uint4* bias;
  std::size_t chunks_per_row;
  __device__ void operator()(std::size_t i, float (&v)[8]) const {
    float b[8];
    unpack_bf16x8(bias[i % chunks_per_row], b);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      v[e] += b[e];
  }
};

struct Add {
  const uint4* other;
  __device__ void operator()(std::size_t i, float (&v)[8]) const {
    float b[8];
    unpack_bf16x8(other[i], b);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      v[e] += b[e];
  }
};

struct Scale {
  float factor;
  __device__ void operator()(std::size_t, float (&v)[8]) const {
#pragma unroll
    for (int e = 0; e < 8; ++e)
      v[e] *= factor;
  }
};

struct CausalMaskFill {
  std::size_t n;  // the matrices are n × n; n % 8 == 0, so a chunk never straddles two rows
  __device__ void operator()(std::size_t i, float (&v)[8]) const {
    const std::size_t first = i * 8;
    const std::size_t column = first % n;
    const std::size_t row = (first / n) % n;
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (column + e > row)
        v[e] = -INFINITY;
  }
};

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

void require(bool ok, const char* launcher, const std::string& what) {
  if (!ok)
    throw std::invalid_argument(std::string(launcher) + ": " + what);
}

template <class Op>
void launch_map(const char* launcher, const __nv_bfloat16* in, __nv_bfloat16* out,
                std::size_t count, Op op, cudaStream_t stream) {
  require(count % 8 == 0, launcher,
          std::to_string(count) + " elements is not a multiple of 8 (16-byte vectors)");
  require(aligned16(in) && aligned16(out), launcher, "in and out must be 16-byte aligned");
  const std::size_t chunks = count / 8;
  if (chunks == 0)
    return;
  const std::size_t blocks = (chunks + kChunksPerBlock - 1) / kChunksPerBlock;
  map_bf16x8<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out), chunks, op);
  AISP_CHECK_LAUNCH();
}

}  // namespace

void launch_gelu_erf_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t count,
                          cudaStream_t stream) {
  launch_map("launch_gelu_erf_bf16", in, out, count, GeluErf{}, stream);
}

void launch_gelu_tanh_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t count,
                           cudaStream_t stream) {
  launch_map("launch_gelu_tanh_bf16", in, out, count, GeluTanh{}, stream);
}

void launch_apply_mask_bf16(const __nv_bfloat16* in, const std::uint8_t* mask, __nv_bfloat16* out,
                            std::size_t count, cudaStream_t stream) {
  require(reinterpret_cast<std::uintptr_t>(mask) % 8 == 0, "launch_apply_mask_bf16",
          "mask must be 8-byte aligned");
  launch_map("launch_apply_mask_bf16", in, out, count,
             ApplyMask{reinterpret_cast<const uint2*>(mask)}, stream);
}

void launch_add_bias_bf16(const __nv_bfloat16* in, const __nv_bfloat16* bias, __nv_bfloat16* out,
                          std::size_t rows, std::size_t cols, cudaStream_t stream) {
  require(cols % 8 == 0 && aligned16(bias), "launch_add_bias_bf16",
          "cols must be a multiple of 8 and bias 16-byte aligned");
  launch_map("launch_add_bias_bf16", in, out, rows * cols,
             AddBias{reinterpret_cast<const uint4*>(bias), cols / 8}, stream);
}

void launch_add_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* out,
                     std::size_t count, cudaStream_t stream) {
  require(aligned16(b), "launch_add_bf16", "b must be 16-byte aligned");
  launch_map("launch_add_bf16", a, out, count, Add{reinterpret_cast<const uint4*>(b)}, stream);
}

void launch_scale_bf16(const __nv_bfloat16* in, float scale, __nv_bfloat16* out, std::size_t count,
                       cudaStream_t stream) {
  launch_map("launch_scale_bf16", in, out, count, Scale{scale}, stream);
}

void launch_causal_mask_fill_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, std::size_t matrices,
                                  std::size_t n, cudaStream_t stream) {
  require(n % 8 == 0, "launch_causal_mask_fill_bf16", "n must be a multiple of 8");
  launch_map("launch_causal_mask_fill_bf16", in, out, matrices * n * n, CausalMaskFill{n}, stream);
}

}  // namespace aisp::ch14
