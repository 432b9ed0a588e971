// The fused LayerNorm → GELU → mask kernel, written once and used twice: compiled here by nvcc
// (optimized_ln_gelu_mask: the row length is a kernel argument) and kept as text for NVRTC
// (optimized_ln_gelu_mask_nvrtc: compiled at setup with the row length as a template argument).
// AISP_CH14_COMPILED_AND_AS_TEXT expands its argument as code and also stringizes it, so the two
// builds cannot drift apart. The text therefore uses no #include and no #pragma (`_Pragma`
// survives stringizing) and no header types: bf16 is handled as raw bits (unpacked by a shift,
// packed two at a time by the cvt.rn.bf16x2.f32 instruction, round to nearest even), and only
// NVRTC's built-ins appear (uint4, __shfl_xor_sync, __byte_perm, __expf, rsqrtf).
//
// Instruction budget. 5 bytes per element leave 1.2 ps of HBM time per element on the H200, about
// 40 instruction issues of the whole GPU: a kernel that spends more than that per element is
// bound by instruction issue, not memory. The first version spent ~55 PTX instructions per
// element, moves excluded (erff alone is a long polynomial with a branch; the mask and the bf16
// rounding were done element by element), and ran at 50% (nvcc build) and 58% (NVRTC build) of
// the copy ceiling with the SMs 73-77% busy (ncu, H200, run 20261123-221611-1308). This one
// spends ~34: erf by Abramowitz & Stegun 7.1.26 (aisp_erf; the baseline's GELU kernel uses the
// same function, so the pair measures fusion, not a cheaper erf), one cvt per two outputs, and
// the mask applied to packed pairs with one __byte_perm and one AND. It ran at 54% and 70% (run
// 20261123-223818-95c9; SMs 66% and 78% busy, DRAM 48% and 62%): issue and memory now take about
// the same time, and neither is hidden under the other.
//
// One block of kThreads threads per row. Each thread holds its chunks of 8 bf16 (16 bytes) in
// registers: x is read once, the mean and variance come from two block sums over the registers
// (two-pass variance, no cancellation), and the normalized, GELU'd, masked row is written once.
//   kCols > 0: the row length is a compile-time constant (the NVRTC build): the chunk count per
//     thread is exact, every bounds test folds away, and the register array is as small as the
//     row allows.
//   kCols == 0: the row length is cols_at_run_time (the ahead-of-time build, which must serve any
//     row length up to kMaxCols): the register array is sized for kMaxCols and every chunk is
//     guarded by a run-time test.
// Per element: 2 bytes of x, 1 byte of mask read, 2 bytes of y written (gamma and beta are one row,
// read from cache); about 25 FLOPs (LayerNorm, GELU with its erf, mask). Ceiling: HBM bandwidth.
#pragma once

// clang-format off
// Expands `...` as code and defines `text_name` as the same code, stringized.
#define AISP_CH14_COMPILED_AND_AS_TEXT(text_name, ...) \
  __VA_ARGS__                                          \
  inline constexpr char text_name[] = #__VA_ARGS__;
// clang-format on

namespace aisp::ch14 {
namespace {

// The macro's argument stays formatted as the code it is.
// clang-format off
AISP_CH14_COMPILED_AND_AS_TEXT(kFusedLnGeluMaskSource,

__device__ __forceinline__ float aisp_bf16_bits_to_float(unsigned int bits) {
  return __uint_as_float(bits << 16);
}

// Two floats to a bf16 pair, round to nearest even, `lo` in the low half: one cvt instruction.
__device__ __forceinline__ unsigned int aisp_pack_bf16x2(float lo, float hi) {
  unsigned int packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

// erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7 in exact arithmetic; with the fast
// reciprocal and exponential below, ~1e-6), about 12 instructions and two MUFU operations where
// erff takes several times that; its error is far below a bf16 ulp of the result.
__device__ __forceinline__ float aisp_erf(float x) {
  const float a = fabsf(x);
  const float t = __fdividef(1.0f, fmaf(0.3275911f, a, 1.0f));
  const float poly =
      t * fmaf(t, fmaf(t, fmaf(t, fmaf(t, 1.061405429f, -1.453152027f), 1.421413741f),
                       -0.284496736f), 0.254829592f);
  return copysignf(fmaf(-poly, __expf(-a * a), 1.0f), x);
}

// GELU, erf form: 0.5 h (1 + erf(h / sqrt 2)).
__device__ __forceinline__ float aisp_gelu_erf(float h) {
  return h * fmaf(0.5f, aisp_erf(h * 0.70710678118654752f), 0.5f);
}

// One byte per element, 4 to a word: 0xff where the byte is non-zero, 0x00 where it is zero.
__device__ __forceinline__ unsigned int aisp_nonzero_bytes(unsigned int word) {
  unsigned int t = word | (word >> 4);
  t |= t >> 2;
  t |= t >> 1;
  return (t & 0x01010101u) * 0xffu;
}

template <int kThreads>
__device__ __forceinline__ float aisp_block_sum(float v, float* scratch) {
  _Pragma("unroll")
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31u) == 0)
    scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  float total = 0.0f;
  _Pragma("unroll")
  for (int w = 0; w < kThreads / 32; ++w)
    total += scratch[w];
  __syncthreads();
  return total;
}

template <int kCols, int kThreads, int kMaxCols>
__global__ void __launch_bounds__(kThreads)
    fused_ln_gelu_mask(const uint4* __restrict__ x, const uint2* __restrict__ mask,
                       const uint4* __restrict__ gamma, const uint4* __restrict__ beta,
                       uint4* __restrict__ y, int cols_at_run_time, float eps) {
  static_assert(kThreads % 32 == 0, "whole warps");
  static_assert((kCols > 0 ? kCols : kMaxCols) % (8 * kThreads) == 0,
                "the register array holds whole chunks of 8 per thread");
  constexpr int kChunks = (kCols > 0 ? kCols : kMaxCols) / (8 * kThreads);
  const int cols = kCols > 0 ? kCols : cols_at_run_time;
  const int chunks_per_row = cols / 8;
  const unsigned long long row_start =
      static_cast<unsigned long long>(blockIdx.x) * static_cast<unsigned long long>(chunks_per_row);
  __shared__ float scratch[kThreads / 32];

  float v[kChunks][8];
  float sum = 0.0f;
  _Pragma("unroll")
  for (int c = 0; c < kChunks; ++c) {
    const int chunk = c * kThreads + static_cast<int>(threadIdx.x);
    if (chunk < chunks_per_row) {
      const uint4 raw = x[row_start + chunk];
      const unsigned int words[4] = {raw.x, raw.y, raw.z, raw.w};
      _Pragma("unroll")
      for (int w = 0; w < 4; ++w) {
        v[c][2 * w] = aisp_bf16_bits_to_float(words[w] & 0xffffu);
        v[c][2 * w + 1] = aisp_bf16_bits_to_float(words[w] >> 16);
      }
      _Pragma("unroll")
      for (int e = 0; e < 8; ++e)
        sum += v[c][e];
    } else {
      _Pragma("unroll")
      for (int e = 0; e < 8; ++e)
        v[c][e] = 0.0f;
    }
  }
  const float mean = aisp_block_sum<kThreads>(sum, scratch) / static_cast<float>(cols);

  float squares = 0.0f;
  _Pragma("unroll")
  for (int c = 0; c < kChunks; ++c) {
    if (c * kThreads + static_cast<int>(threadIdx.x) < chunks_per_row) {
      _Pragma("unroll")
      for (int e = 0; e < 8; ++e) {
        const float d = v[c][e] - mean;
        squares += d * d;
      }
    }
  }
  const float variance = aisp_block_sum<kThreads>(squares, scratch) / static_cast<float>(cols);
  const float rstd = rsqrtf(variance + eps);

  _Pragma("unroll")
  for (int c = 0; c < kChunks; ++c) {
    const int chunk = c * kThreads + static_cast<int>(threadIdx.x);
    if (chunk < chunks_per_row) {
      const uint4 g = gamma[chunk];
      const uint4 b = beta[chunk];
      const uint2 m = mask[row_start + chunk];
      const unsigned int g_words[4] = {g.x, g.y, g.z, g.w};
      const unsigned int b_words[4] = {b.x, b.y, b.z, b.w};
      const unsigned int keep_bytes[2] = {aisp_nonzero_bytes(m.x), aisp_nonzero_bytes(m.y)};
      unsigned int out_words[4];
      _Pragma("unroll")
      for (int w = 0; w < 4; ++w) {
        float gelu[2];
        _Pragma("unroll")
        for (int half = 0; half < 2; ++half) {
          const int e = 2 * w + half;
          const unsigned int shift = 16u * static_cast<unsigned int>(half);
          const float gamma_e = aisp_bf16_bits_to_float((g_words[w] >> shift) & 0xffffu);
          const float beta_e = aisp_bf16_bits_to_float((b_words[w] >> shift) & 0xffffu);
          gelu[half] = aisp_gelu_erf((v[c][e] - mean) * rstd * gamma_e + beta_e);
        }
        // The two elements' keep bytes, each spread over its 16-bit half: 0xffff keeps the bf16
        // value, 0x0000 makes it +0.
        const unsigned int byte = static_cast<unsigned int>(2 * (w % 2));
        const unsigned int keep = __byte_perm(keep_bytes[w / 2], 0u,
                                              byte | (byte << 4) | ((byte + 1) << 8) | ((byte + 1) << 12));
        out_words[w] = aisp_pack_bf16x2(gelu[0], gelu[1]) & keep;
      }
      y[row_start + chunk] = make_uint4(out_words[0], out_words[1], out_words[2], out_words[3]);
    }
  }
}

)
// clang-format on

}  // namespace
}  // namespace aisp::ch14
