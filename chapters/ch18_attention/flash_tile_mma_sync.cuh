// The per-warp arithmetic of the mma.sync flash-attention kernels (FA2 style), shared by the
// cp.async rung (flash_attention_fa2.cu) and the TMA rung (flash_attention_fa2_tma.cu), which
// differ only in how K and V tiles reach shared memory.
//
// A block owns kBlockM = 128 query rows of one (batch, head) and walks the keys in tiles of
// kBlockN = 64. Its 4 warps own 32 query rows each (two 16-row m-tiles of mma.m16n8k16), so
// every K/V fragment a warp loads from shared memory feeds two MMAs. Per tile a warp computes
//   S = Q·Kᵀ          32×64 FP32 in registers (64 per thread), Q and K by ldmatrix
//   online softmax     running row max m and sum l; P = 2^(S·scale·log2e − m); O *= 2^(Δm)
//   O += P·V           P converted in registers to BF16 A fragments, V by ldmatrix.trans
// and O (32×D FP32, 128 registers per thread at D 128) stays in registers until the end.
// Q is re-read from shared memory every tile (at D 128, Q fragments in registers as well would
// need ~256 registers per thread; FlashAttention-2 makes the same choice at this head dim).
//
// Shared-memory tiles use the layout TMA's 128-byte swizzle writes: the D columns in panels of
// 64 (128 bytes per row), rows of a panel 128 bytes apart, and 16-byte chunk c of row r stored
// at chunk c ^ (r % 8). The 8 row addresses of an ldmatrix phase then fall in 8 different
// 16-byte bank groups: no bank conflicts, with or without .trans.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "../common/attention_shapes.cuh"
#include "../common/attention_warp_fragments.cuh"
#include "../common/bf16_pack.cuh"
#include "../common/mma_sync.cuh"

namespace aisp::ch18::flash {

using attention::MaskKind;

constexpr int kBlockM = 128;
constexpr int kBlockN = 64;
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kRowsPerWarp = kBlockM / kWarps;  // 32: two m-tiles of 16
constexpr float kLog2e = 1.4426950408889634f;

template <int kD>
__host__ __device__ constexpr int tile_bytes(int rows) {
  return rows * kD * 2;
}

// Byte offset of the 16-byte chunk holding (row, col) of a kRows-row tile, col a multiple of 8.
template <int kRows>
__device__ __forceinline__ std::uint32_t swizzled_offset(int row, int col) {
  return static_cast<std::uint32_t>((col >> 6) * (kRows * 128) + row * 128 +
                                    ((((col >> 3) & 7) ^ (row & 7)) << 4));
}

// The running state of one warp's 32 query rows. Thread (g = lane / 4, q = lane % 4) holds rows
// g and g + 8 of each m-tile ([mt][half]) and, per 8-column n-tile, columns 2q and 2q + 1.
template <int kD>
struct WarpAccumulator {
  float o[2][kD / 8][4];
  // The running max already scaled, b = RN(max · scale_log2), the base the exponents subtract;
  // -inf until a visible key is seen. Kept scaled so O's rescale factor 2^(b_old − b_new) is
  // exactly 1 while the max stays (see online_softmax).
  float row_base[2][2];
  float row_sum[2][2];  // this thread's part of Σ p; the quad's four parts add up at the end

  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int mt = 0; mt < 2; ++mt) {
#pragma unroll
      for (int dt = 0; dt < kD / 8; ++dt)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          o[mt][dt][e] = 0.0f;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        row_base[mt][h] = -INFINITY;
        row_sum[mt][h] = 0.0f;
      }
    }
  }
};

// S = Q_warp · K_tileᵀ for this warp's 32 rows and kKeys keys of the tile from key0 on (all 64 by
// default; 32 when the scores are computed in halves). kStepUnroll: how many of the D/16 k-steps
// the compiler may unroll (all by default). Fully unrolled at D 128, ptxas hoists the ldmatrix
// loads of later k-steps ahead of earlier MMAs (more fragments live at once) and, with O's 128
// and S's 64 registers, runs out of 255 and spills; a rolled loop (1) does not (ptxas -v, sm_90a:
// 136 → 0 bytes of spill stores; flash_attention_fa2_tma.cu's "rolled" rung).
template <int kD, int kKeys = kBlockN, int kStepUnroll = kD / 16>
__device__ __forceinline__ void warp_scores(float (&s)[2][kKeys / 8][4], const std::uint8_t* q_tile,
                                            const std::uint8_t* k_tile, int warp, int lane,
                                            int key0 = 0) {
  static_assert(kKeys % 16 == 0 && kKeys <= kBlockN, "whole 16-key pairs of n-tiles");
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int nt = 0; nt < kKeys / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[mt][nt][e] = 0.0f;
  // ldmatrix row addresses: A (Q) matrices are (rows 0-7 | 8-15) × (cols 0-7 | 8-15) in the
  // order a0..a3; B (K, n-major) matrices are (keys 0-7, dims 0-7), (keys 0-7, dims 8-15),
  // (keys 8-15, dims 0-7), (keys 8-15, dims 8-15): b0, b1 of n-tile 0 then of n-tile 1.
  const int a_row = (lane & 7) + ((lane >> 3) & 1) * 8, a_col = (lane >> 4) * 8;
  const int b_row = (lane & 7) + (lane >> 4) * 8, b_col = ((lane >> 3) & 1) * 8;
#pragma unroll kStepUnroll
  for (int ks = 0; ks < kD / 16; ++ks) {
    std::uint32_t a[2][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
      common::ldmatrix_x4(a[mt],
                          q_tile + swizzled_offset<kBlockM>(warp * kRowsPerWarp + mt * 16 + a_row,
                                                            ks * 16 + a_col));
#pragma unroll
    for (int np = 0; np < kKeys / 16; ++np) {
      std::uint32_t b[4];
      common::ldmatrix_x4(b, k_tile +
                                 swizzled_offset<kBlockN>(key0 + np * 16 + b_row, ks * 16 + b_col));
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        common::mma_m16n8k16_bf16(s[mt][2 * np], a[mt], b[0], b[1]);
        common::mma_m16n8k16_bf16(s[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }
}

// True when some (query, key) pair of the block's rows [m0, m0 + kBlockM) and the tile's keys
// [n0, n0 + kBlockN) is hidden by the mask: only such tiles pay for per-element masking.
template <MaskKind kMask>
__device__ __forceinline__ bool tile_needs_mask(int m0, int n0, int window) {
  if (kMask == MaskKind::none)
    return false;
  const bool past_diagonal = n0 + kBlockN - 1 > m0;  // some key is later than some row
  if (kMask == MaskKind::causal)
    return past_diagonal;
  return past_diagonal || n0 <= m0 + kBlockM - 1 - window;  // some key left of some row's window
}

// Sets hidden scores to -inf. row0 = the warp's first query row, n0 = the tile's first key.
template <MaskKind kMask>
__device__ __forceinline__ void mask_scores(float (&s)[2][8][4], int row0, int n0, int window,
                                            int lane) {
  const int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int nt = 0; nt < 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = row0 + mt * 16 + g + (e >> 1) * 8;
        const int key = n0 + nt * 8 + 2 * q + (e & 1);
        const bool hidden = key > row || (kMask == MaskKind::sliding_window && key <= row - window);
        if (hidden)
          s[mt][nt][e] = -INFINITY;
      }
}

// Online softmax over one tile: updates the running max and sum, rescales O by 2^(m_old − m_new)
// and writes p = 2^(s·scale·log2e − m_new) (in [0, 1]) rounded to BF16 as the A fragments of the
// P·V product: P's accumulator layout (n-tiles 2kk and 2kk+1 for keys 16kk..16kk+15) is exactly
// the A-fragment layout of k-step kk, so P never leaves registers, and packing it as soon as it
// exists halves the registers it holds while O += P·V runs.
template <int kD, int kKeys = kBlockN>
__device__ __forceinline__ void online_softmax(const float (&s)[2][kKeys / 8][4],
                                               std::uint32_t (&p)[2][kKeys / 16][4],
                                               WarpAccumulator<kD>& acc, float scale_log2) {
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < kKeys / 8; ++nt)
        tile_max = fmaxf(tile_max, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      // Written as 2^(old_max · scale_log2 − RN(new_max · scale_log2)), ptxas contracts the rescale
      // into one FFMA whose result is the product's rounding error, not 0, when the max stays: at
      // scores ~1e9 that is up to 2^8 per tile, and O overflows (found in chapter 18's FA3 kernel
      // through chapter 14's block on offset inputs). RN is monotone, so max(b_old, RN(tile_max ·
      // scale_log2)) is the same base; the factor is then exactly 1 while the max stays.
      const float new_base = fmaxf(acc.row_base[mt][h], tile_max * scale_log2);
      // A row with no visible key yet keeps -inf: subtract 0 so 2^(-inf) = 0, never NaN.
      const float base = new_base == -INFINITY ? 0.0f : new_base;
      const float correction = common::exp2_approx(acc.row_base[mt][h] - base);
      acc.row_base[mt][h] = new_base;
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < kKeys / 8; ++nt) {
        const float p0 = common::exp2_approx(fmaf(s[mt][nt][2 * h], scale_log2, -base));
        const float p1 = common::exp2_approx(fmaf(s[mt][nt][2 * h + 1], scale_log2, -base));
        sum += p0 + p1;
        // n-tile nt = 2kk + odd: rows g (h 0) or g + 8 (h 1) of k-step kk, keys 8·odd + 2q..
        p[mt][nt / 2][(nt % 2) * 2 + h] = common::pack_bf16x2(p0, p1);
      }
      acc.row_sum[mt][h] = acc.row_sum[mt][h] * correction + sum;
#pragma unroll
      for (int dt = 0; dt < kD / 8; ++dt) {
        acc.o[mt][dt][2 * h] *= correction;
        acc.o[mt][dt][2 * h + 1] *= correction;
      }
    }
}

// O += P·V_tile over kKeys keys of the tile from key0 on, P as BF16 A fragments (online_softmax),
// V by ldmatrix.trans.
template <int kD, int kKeys = kBlockN>
__device__ __forceinline__ void
warp_accumulate_pv(WarpAccumulator<kD>& acc, const std::uint32_t (&p)[2][kKeys / 16][4],
                   const std::uint8_t* v_tile, int lane, int key0 = 0) {
  // ldmatrix.trans matrices: (keys 0-7, dims 0-7), (keys 8-15, dims 0-7), (keys 0-7, dims 8-15),
  // (keys 8-15, dims 8-15): b0, b1 of the first dim n-tile, then of the second.
  const int v_row = (lane & 7) + ((lane >> 3) & 1) * 8, v_col = (lane >> 4) * 8;
#pragma unroll
  for (int kk = 0; kk < kKeys / 16; ++kk) {
#pragma unroll
    for (int dp = 0; dp < kD / 16; ++dp) {
      std::uint32_t b[4];
      common::ldmatrix_x4_trans(
          b, v_tile + swizzled_offset<kBlockN>(key0 + kk * 16 + v_row, dp * 16 + v_col));
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        common::mma_m16n8k16_bf16(acc.o[mt][2 * dp], p[mt][kk], b[0], b[1]);
        common::mma_m16n8k16_bf16(acc.o[mt][2 * dp + 1], p[mt][kk], b[2], b[3]);
      }
    }
  }
}

// O / l, rounded to BF16, written to rows row0.. of the head's output (o_head: row 0 of the head).
template <int kD>
__device__ __forceinline__ void store_output(WarpAccumulator<kD>& acc, __nv_bfloat16* o_head,
                                             int row0, int lane) {
  const int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float l = acc.row_sum[mt][h];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = 1.0f / l;  // every row sees at least its own key: l > 0
      __nv_bfloat16* out = o_head + static_cast<long long>(row0 + mt * 16 + g + 8 * h) * kD;
#pragma unroll
      for (int dt = 0; dt < kD / 8; ++dt)
        *reinterpret_cast<std::uint32_t*>(out + dt * 8 + 2 * q) =
            common::pack_bf16x2(acc.o[mt][dt][2 * h] * inv, acc.o[mt][dt][2 * h + 1] * inv);
    }
}

// The key tiles [first, last) a block of query rows [m0, m0 + kBlockM) visits: all of them when
// masked tiles are computed (the dense kernel applying the mask), else only those holding a
// visible key.
template <MaskKind kMask, bool kSkipMaskedTiles>
struct TileRange {
  int first = 0;
  int last = 0;
  __device__ __forceinline__ TileRange(int m0, int seq, int window) {
    last = seq / kBlockN;
    if (kSkipMaskedTiles && kMask != MaskKind::none) {
      last = (m0 + kBlockM - 1) / kBlockN + 1;
      if (kMask == MaskKind::sliding_window) {
        const int first_key = m0 - window + 1;
        first = first_key > 0 ? first_key / kBlockN : 0;
      }
    }
  }
};

// Which m-block a block computes: under a mask the later rows have the most keys, so they are
// handed out first (block 0 gets the last m-block) to shorten the tail.
template <MaskKind kMask>
__device__ __forceinline__ int block_m_index() {
  return kMask == MaskKind::none ? static_cast<int>(blockIdx.x)
                                 : static_cast<int>(gridDim.x - 1 - blockIdx.x);
}

}  // namespace aisp::ch18::flash
