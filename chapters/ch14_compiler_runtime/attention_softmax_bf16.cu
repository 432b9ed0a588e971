// Softmax over rows of 2048 bf16 scores (the eager block's softmax): one warp per row, each lane
// holding 8 chunks of 8 values (64 fp32 registers), so each score is read once and each
// probability written once; max and sum by warp shuffles; exp in fp32 (expf).
// Bytes per row: 4 KiB read + 4 KiB written; ~4 FLOPs per element plus an exp. Ceiling: HBM
// bandwidth.
#include "attention_softmax_bf16.cuh"

#include <aisp/check.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bf16x8.cuh"

namespace aisp::ch14 {
namespace {

constexpr int kWarpsPerBlock = 4;

template <int kCols>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    softmax_rows(const uint4* s, uint4* p, std::size_t rows) {  // s may be p
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kChunks = kChunksPerRow / 32;
  static_assert(kChunksPerRow % 32 == 0, "whole chunks per lane");
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows)
    return;  // a whole warp leaves together
  const std::size_t row_start = row * kChunksPerRow;

  float v[kChunks][8];
  float row_max = -INFINITY;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    unpack_bf16x8(s[row_start + c * 32 + lane], v[c]);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      row_max = fmaxf(row_max, v[c][e]);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    row_max = fmaxf(row_max, __shfl_xor_sync(0xffffffffu, row_max, offset));

  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      v[c][e] = expf(v[c][e] - row_max);  // -inf -> 0; key 0 is never masked, so row_max is finite
      sum += v[c][e];
    }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  const float inverse = 1.0f / sum;

#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
#pragma unroll
    for (int e = 0; e < 8; ++e)
      v[c][e] *= inverse;
    p[row_start + c * 32 + lane] = pack_bf16x8(v[c]);
  }
}

bool aligned16(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

void check_arguments(const char* launcher, const void* s, const void* p, int cols) {
  if (cols != kSoftmaxCols)
    throw std::invalid_argument(std::string(launcher) + ": rows of " + std::to_string(cols) +
                                " have no kernel; add an instantiation in "
                                "attention_softmax_bf16.cu (built: " +
                                std::to_string(kSoftmaxCols) + ")");
  if (!aligned16(s) || !aligned16(p))
    throw std::invalid_argument(std::string(launcher) + ": s and p must be 16-byte aligned");
}

unsigned blocks_for(std::size_t rows) {
  return static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

}  // namespace

void launch_softmax_rows_bf16(const __nv_bfloat16* s, __nv_bfloat16* p, std::size_t rows, int cols,
                              cudaStream_t stream) {
  check_arguments("launch_softmax_rows_bf16", s, p, cols);
  softmax_rows<kSoftmaxCols><<<blocks_for(rows), kWarpsPerBlock * 32, 0, stream>>>(
      reinterpret_cast<const uint4*>(s), reinterpret_cast<uint4*>(p), rows);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::ch14
