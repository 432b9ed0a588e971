// The epilogue of the wgmma rungs: one warpgroup's 64×N fp32 accumulator tile (wgmma.cuh's
// layout) rounded to bf16 and stored straight from registers to C (row-major, ldc elements per
// row). Each thread writes pairs of adjacent columns (4 bytes); the four lanes of a quad cover 16
// contiguous bytes of a row and the next register group the following 16, so every 32-byte
// sector is written whole by two consecutive stores.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace aisp::ch10 {

template <int N>
__device__ __forceinline__ void store_wgmma_tile_bf16(const float (&d)[N / 2], __nv_bfloat16* c,
                                                      std::size_t ldc, std::size_t row0,
                                                      std::size_t col0) {
  const int thread = static_cast<int>(threadIdx.x % 128);
  const int warp = thread / 32, lane = thread % 32;
  const std::size_t row = row0 + 16 * warp + lane / 4;
  __nv_bfloat16* top = c + row * ldc + col0 + 2 * (lane % 4);
  __nv_bfloat16* bottom = top + 8 * ldc;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    *reinterpret_cast<__nv_bfloat162*>(top + 8 * j) = __floats2bfloat162_rn(d[4 * j], d[4 * j + 1]);
    *reinterpret_cast<__nv_bfloat162*>(bottom + 8 * j) =
        __floats2bfloat162_rn(d[4 * j + 2], d[4 * j + 3]);
  }
}

}  // namespace aisp::ch10
