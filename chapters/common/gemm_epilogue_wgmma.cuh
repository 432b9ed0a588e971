// Epilogues of the wgmma GEMMs: what happens to a warpgroup's fp32 accumulator tile between the
// last wgmma and the store. An epilogue is a small functor applied to each pair of adjacent output
// columns; store_wgmma_tile_bf16 walks the accumulator layout (wgmma.cuh: warp w holds rows
// 16w..16w+15, lane l row g = l/4 and g + 8, register 4j + e column 8j + 2(l%4) + (e%2)) and
// writes the results as bf16x2 words straight from registers, the same access pattern as chapter
// 10's plain epilogue (the four lanes of a quad cover 16 contiguous bytes of a row, so every
// 32-byte sector is written whole by two consecutive stores).
//
//   store_wgmma_tile_bf16<128>(d, c, ldc, row0, col0, EpilogueBiasGelu{bias});
//   store_wgmma_tile_bf16<256>(d, c, ldc, row0, col0, EpilogueIdentity{}, /*row_end=*/rows);
//
// Fusing the epilogue is what saves a GEMM its elementwise kernels: the bias, activation and
// rounding happen on values already in registers, and C is written once (chapter 10,
// gemm_bias_gelu). row_end masks rows at and beyond it (a grouped GEMM's group boundary or the
// matrix's last row): rows there are computed but never stored.
// Device code only; depends on the CUDA headers (dev probes link it directly).
#pragma once

#include <cuda_bf16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace aisp::common {

// GELU in its tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): the form cuBLASLt's GELU
// epilogues and PyTorch's gelu(approximate="tanh") compute. Written as x·sigmoid(2u), which is the
// same function (0.5·(1 + tanh(u)) = 1 / (1 + e^(-2u))) and keeps its relative accuracy where
// 1 + tanh(u) cancels (x ≪ 0): one exp and one reciprocal, ~1e-6 relative error, far below a bf16
// ulp (tanh.approx.f32 would give ~5e-4 absolute error on 1 + tanh, i.e. tens of percent of the
// small negative outputs).
__host__ __device__ __forceinline__ float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  const float u = kSqrt2OverPi * (x + 0.044715f * x * x * x);
#if defined(__CUDA_ARCH__)
  return __fdividef(x, 1.0f + __expf(-2.0f * u));  // x / inf = -0 for x ≪ 0, as it should
#else
  return x / (1.0f + std::exp(-2.0f * u));
#endif
}

// The plain GEMM: C = A·Bᵀ.
struct EpilogueIdentity {
  __device__ __forceinline__ float2 operator()(float x0, float x1, std::size_t /*col*/) const {
    return make_float2(x0, x1);
  }
};

// C = max(A·Bᵀ, 0).
struct EpilogueRelu {
  __device__ __forceinline__ float2 operator()(float x0, float x1, std::size_t /*col*/) const {
    return make_float2(fmaxf(x0, 0.0f), fmaxf(x1, 0.0f));
  }
};

// C = GELU_tanh(A·Bᵀ + bias), bias one bf16 value per output column (torch.nn.Linear's bias),
// read as a bf16x2 pair (col is even); the bias is added to the fp32 accumulator, and the result
// rounded to bf16 once, at the store.
struct EpilogueBiasGelu {
  const __nv_bfloat16* bias = nullptr;
  __device__ __forceinline__ float2 operator()(float x0, float x1, std::size_t col) const {
    const __nv_bfloat162 b = __ldg(reinterpret_cast<const __nv_bfloat162*>(bias + col));
    return make_float2(gelu_tanh(x0 + __low2float(b)), gelu_tanh(x1 + __high2float(b)));
  }
};

// One warpgroup's 64×N accumulator tile d through `epilogue` into C (row-major, ldc elements per
// row) at (row0, col0), rows at or beyond row_end skipped. Call with all 128 threads of the
// warpgroup after wgmma_wait_group<0>() and wgmma_fence_accumulators(d).
template <int N, class Epilogue>
__device__ __forceinline__ void store_wgmma_tile_bf16(const float (&d)[N / 2], __nv_bfloat16* c,
                                                      std::size_t ldc, std::size_t row0,
                                                      std::size_t col0, const Epilogue& epilogue,
                                                      std::size_t row_end = ~std::size_t{0}) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  const std::size_t row = row0 + 16 * warp + lane / 4;
  const bool top_ok = row < row_end, bottom_ok = row + 8 < row_end;
  const std::size_t col = col0 + 2 * (lane % 4);
  __nv_bfloat16* top = c + row * ldc + col;
  __nv_bfloat16* bottom = top + 8 * ldc;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    const float2 t = epilogue(d[4 * j], d[4 * j + 1], col + 8 * j);
    const float2 b = epilogue(d[4 * j + 2], d[4 * j + 3], col + 8 * j);
    if (top_ok)
      *reinterpret_cast<__nv_bfloat162*>(top + 8 * j) = __floats2bfloat162_rn(t.x, t.y);
    if (bottom_ok)
      *reinterpret_cast<__nv_bfloat162*>(bottom + 8 * j) = __floats2bfloat162_rn(b.x, b.y);
  }
}

}  // namespace aisp::common
