// The third version of the fused ln_gelu_mask kernel (one block of kThreads threads per row, a
// persistent grid, the next row's x and mask loaded one row ahead, two block sums per row with a
// barrier each), kept beside the fourth for an A/B in the same run:
// optimized_ln_gelu_mask_block_rows. Measured at the gate of 2026-11-24 (NVIDIA H200, commit
// 5fd926f): 0.82 of hbm_bandwidth (nvcc build, run 20261124-043213-0609), latency-bound on the
// block barriers (ncu: SMs 66% busy, DRAM 72%, achieved occupancy 28%). The code is that version's,
// renamed; only the ahead-of-time build (kCols = 0) is instantiated. It uses the helpers of
// fused_ln_gelu_mask_source.cuh. Per element: 2 bytes of x, 1 byte of mask read, 2 bytes of y
// written. Ceiling: HBM bandwidth.
#pragma once

#include "fused_ln_gelu_mask_source.cuh"

namespace aisp::ch14 {
namespace {

// The sum over the block. Each call site passes its own `partials`, so one barrier per sum is
// enough: a warp writes a call site's partials again only after every warp has passed the other
// call site's barrier, which each warp reaches after reading these partials.
template <int kWarps>
__device__ __forceinline__ float aisp_block_sum(float v, float* partials) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31u) == 0)
    partials[threadIdx.x >> 5] = v;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w)
    total += partials[w];
  return total;
}

// Issues the loads of one row's x and mask chunks (chunk c * kThreads + thread of the row).
// Past the last row, or past the row's end, the chunks are zeros and nothing is loaded.
template <int kCols, int kChunks, int kThreads>
__device__ __forceinline__ void
aisp_load_row(const uint4* __restrict__ x, const uint2* __restrict__ mask, unsigned int row,
              unsigned int rows, int chunks_per_row, int thread, uint4 (&x_chunks)[kChunks],
              uint2 (&mask_chunks)[kChunks]) {
  const unsigned long long row_start =
      static_cast<unsigned long long>(row) * static_cast<unsigned long long>(chunks_per_row);
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int chunk = c * kThreads + thread;
    if (row < rows && (kCols > 0 || chunk < chunks_per_row)) {
      x_chunks[c] = x[row_start + chunk];
      mask_chunks[c] = mask[row_start + chunk];
    } else {
      x_chunks[c] = make_uint4(0u, 0u, 0u, 0u);
      mask_chunks[c] = make_uint2(0u, 0u);
    }
  }
}

template <int kCols, int kThreads, int kMaxCols>
__global__ void __launch_bounds__(kThreads)
    fused_ln_gelu_mask_block_rows(const uint4* __restrict__ x, const uint2* __restrict__ mask,
                                  const uint4* __restrict__ gamma, const uint4* __restrict__ beta,
                                  uint4* __restrict__ y, unsigned int rows, int cols_at_run_time,
                                  float eps) {
  static_assert(kThreads % 32 == 0, "whole warps");
  static_assert((kCols > 0 ? kCols : kMaxCols) % (8 * kThreads) == 0,
                "the register array holds whole chunks of 8 per thread");
  constexpr int kChunks = (kCols > 0 ? kCols : kMaxCols) / (8 * kThreads);
  constexpr int kWarps = kThreads / 32;
  const int cols = kCols > 0 ? kCols : cols_at_run_time;
  const int chunks_per_row = cols / 8;
  const float inv_cols = 1.0f / static_cast<float>(cols);
  const int thread = static_cast<int>(threadIdx.x);
  __shared__ float row_sums[kWarps];
  __shared__ float row_squares[kWarps];

  // The block's rows are blockIdx.x, blockIdx.x + gridDim.x, ...; each row's x and mask are
  // loaded while the row before it is being worked on.
  uint4 next_x[kChunks];
  uint2 next_mask[kChunks];
  unsigned int row = blockIdx.x;
  aisp_load_row<kCols, kChunks, kThreads>(x, mask, row, rows, chunks_per_row, thread, next_x,
                                          next_mask);
  for (; row < rows; row += gridDim.x) {
    const unsigned long long row_start =
        static_cast<unsigned long long>(row) * static_cast<unsigned long long>(chunks_per_row);
    float v[kChunks][8];
    unsigned int keep_signs[kChunks][2];
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const unsigned int words[4] = {next_x[c].x, next_x[c].y, next_x[c].z, next_x[c].w};
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        v[c][2 * w] = aisp_bf16_low_to_float(words[w]);
        v[c][2 * w + 1] = aisp_bf16_high_to_float(words[w]);
      }
#pragma unroll
      for (int e = 0; e < 8; ++e)
        sum += v[c][e];  // chunks past the row's end are zeros
      keep_signs[c][0] = aisp_nonzero_byte_signs(next_mask[c].x);
      keep_signs[c][1] = aisp_nonzero_byte_signs(next_mask[c].y);
    }
    // The next row's loads go out now: they have this row's two block sums and its output pass
    // to arrive in.
    aisp_load_row<kCols, kChunks, kThreads>(x, mask, row + gridDim.x, rows, chunks_per_row, thread,
                                            next_x, next_mask);

    // Two-pass variance (no cancellation on offset rows); v becomes x - mean.
    const float mean = aisp_block_sum<kWarps>(sum, row_sums) * inv_cols;
    float squares = 0.0f;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (kCols > 0 || c * kThreads + thread < chunks_per_row) {
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          v[c][e] -= mean;
          squares = fmaf(v[c][e], v[c][e], squares);
        }
      }
    }
    const float variance = aisp_block_sum<kWarps>(squares, row_squares) * inv_cols;
    const float rstd = rsqrtf(variance + eps);

#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int chunk = c * kThreads + thread;
      if (kCols > 0 || chunk < chunks_per_row) {
        const uint4 g = gamma[chunk];
        const uint4 b = beta[chunk];
        const unsigned int g_words[4] = {g.x, g.y, g.z, g.w};
        const unsigned int b_words[4] = {b.x, b.y, b.z, b.w};
        unsigned int out_words[4];
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          const float lo =
              aisp_gelu_erf(fmaf(v[c][2 * w] * rstd, aisp_bf16_low_to_float(g_words[w]),
                                 aisp_bf16_low_to_float(b_words[w])));
          const float hi =
              aisp_gelu_erf(fmaf(v[c][2 * w + 1] * rstd, aisp_bf16_high_to_float(g_words[w]),
                                 aisp_bf16_high_to_float(b_words[w])));
          // Elements 2w and 2w + 1: mask bytes 2w % 4 and 2w % 4 + 1 of word w / 2.
          const unsigned int keep =
              aisp_spread_byte_signs(keep_signs[c][w / 2], w % 2 == 0 ? 0x9988u : 0xbbaau);
          out_words[w] = aisp_pack_bf16x2(lo, hi) & keep;
        }
        y[row_start + chunk] = make_uint4(out_words[0], out_words[1], out_words[2], out_words[3]);
      }
    }
  }
}

}  // namespace
}  // namespace aisp::ch14
