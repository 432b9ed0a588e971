// Weight-only INT4/INT8 GEMV with the dequantization fused in (weight_only_gemv_kernel.cuh).
//
// Decode multiplies a few tokens (batch 1..16) by every weight once: 2·batch FLOPs per weight
// against 0.5 (INT4) or 1 (INT8) byte, far below any machine balance, so the only goal is to read
// the weight bytes at HBM speed and do the rest in their shadow. The rest is not free: at batch 16
// a weight needs 16 multiply-adds, more than the SIMT units can do at 8 TB/s of INT4 weights
// (7.8 T weights/s · 16 = 125 T FMA/s against ~33 T FMA/s of FP32), so the products run on the
// tensor cores (mma.sync m16n8k16 bf16, fp32 accumulation), with the batch as the MMA's N (one or
// two n8 tiles; rows beyond the batch are zeros).
//
// A warp owns 16 weight rows and half of k (16 groups of 128 at K = 4096); a block of 4 warps two
// such row sets (896 blocks at N = 28672: several waves, so no SM idles through a long tail), and
// each pair's partial sums meet in shared memory at the end. The weights are loaded with
// ld.global.cg (L2 only): read once, they would only evict x from L1, where every warp of the SM
// finds it (x is 8 KB at batch 1, 128 KB at batch 16). Per group of 128 k a warp loads its rows'
// bytes straight into the MMA's A-fragment registers, with the k dimension permuted so those loads
// are wide: thread (g = lane/4, q = lane%4) holds, for MMA step s (0..7) of the group, the four
// weights at k = 32q + 4s + 0..3 of rows g and g+8, where the MMA believes they sit at its k = 2q,
// 2q+1, 2q+8, 2q+9. Any permutation of k is exact as long as x's B fragment uses the same one: the
// thread loads x[batch g][32q + 4s + 0..3] for those positions. So thread q of a row reads one
// contiguous 16-byte (INT4) or 32-byte (INT8) slice per group, and its x for the whole group is
// 64 contiguous bytes (four 16-byte loads, issued together at the start of the group).
// INT4 -> bf16 is two instructions per pair: (word >> 4p) & 0x000F000F | 0x43004300 is the bf16
// pair (128 + u, 128 + u') of nibbles p and p+4, which the interleaved storage
// (quant_weight_only.cuh) makes the weights at k and k+1; subtracting 136 leaves q = u - 8.
// INT8 goes through fp32 (0x4B000000 | byte is 2^23 + byte). Each group's 8 MMAs accumulate in
// a temporary that is then scaled by the rows' group scales into the fp32 result. Weights are
// prefetched 4 groups ahead (64 bytes of INT4 per thread in flight, 128 of INT8).
//
// Bytes: N·K·bits/8 (weights) + N·K/128·2 (scales) + batch·K·2 (x) + batch·N·2 (y); FLOPs
// 2·batch·N·K. Ceiling: HBM bandwidth (the weights dominate the bytes). Runs on sm_80 and later.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../common/quant_weight_only.cuh"
#include "weight_only_gemv_kernel.cuh"

namespace aisp::ch19 {
namespace {

constexpr int kGroup = common::kWeightOnlyGroup;
constexpr int kPrefetch = 4;  // groups in flight per thread
constexpr int kSplitK = 2;    // warps per 16-row set, each half of k
constexpr int kRowSetsPerBlock = 2;
constexpr int kWarpsPerBlock = kSplitK * kRowSetsPerBlock;

__device__ __forceinline__ std::uint32_t bf16x2_bits(__nv_bfloat162 v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

// Nibbles p and p+4 of an interleaved INT4 word as the bf16 pair (q_k, q_k+1).
__device__ __forceinline__ std::uint32_t int4_pair(std::uint32_t word, int p) {
  const std::uint32_t biased = ((word >> (4 * p)) & 0x000F000Fu) | 0x43004300u;  // 128 + u
  __nv_bfloat162 v;
  std::memcpy(&v, &biased, sizeof(v));
  return bf16x2_bits(__hsub2(v, __float2bfloat162_rn(136.0f)));  // exact: small integers
}

// Signed bytes b and b+1 of a word (byte index 0 or 2) as the bf16 pair.
__device__ __forceinline__ std::uint32_t int8_pair(std::uint32_t word, int first) {
  const std::uint32_t flipped = word ^ 0x80808080u;  // b + 128 as an unsigned byte
  const float lo = __uint_as_float(__byte_perm(flipped, 0x4B000000u, 0x7650 + first)) - 8388736.0f;
  const float hi =
      __uint_as_float(__byte_perm(flipped, 0x4B000000u, 0x7650 + first + 1)) - 8388736.0f;
  return bf16x2_bits(__floats2bfloat162_rn(lo, hi));
}

__device__ __forceinline__ void mma_bf16_16816(float (&c)[4], const std::uint32_t (&a)[4],
                                               std::uint32_t b0, std::uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One thread's slice of one group: kWords 32-bit words per row (4 for INT4, 8 for INT8).
template <int kBits>
struct Slice {
  static constexpr int kWords = kBits == 4 ? 4 : 8;
  std::uint32_t lo[kWords];  // row g
  std::uint32_t hi[kWords];  // row g + 8
  float scale_lo = 0.0f, scale_hi = 0.0f;
};

template <int kBits>
__device__ __forceinline__ void load_slice(Slice<kBits>& s, const std::uint8_t* row_lo,
                                           const std::uint8_t* row_hi, const __nv_bfloat16* sc_lo,
                                           const __nv_bfloat16* sc_hi, int group, int q) {
  constexpr int kSliceBytes = 4 * Slice<kBits>::kWords;  // 16 or 32
  const std::size_t at = static_cast<std::size_t>(group) * (kGroup * kBits / 8) + q * kSliceBytes;
#pragma unroll
  for (int v = 0; v < kSliceBytes / 16; ++v) {
    // ld.global.cg: weights are read once, so they bypass L1, which then keeps x.
    const uint4 l = __ldcg(reinterpret_cast<const uint4*>(row_lo + at) + v);
    const uint4 h = __ldcg(reinterpret_cast<const uint4*>(row_hi + at) + v);
    s.lo[4 * v] = l.x, s.lo[4 * v + 1] = l.y, s.lo[4 * v + 2] = l.z, s.lo[4 * v + 3] = l.w;
    s.hi[4 * v] = h.x, s.hi[4 * v + 1] = h.y, s.hi[4 * v + 2] = h.z, s.hi[4 * v + 3] = h.w;
  }
  s.scale_lo = __bfloat162float(sc_lo[group]);
  s.scale_hi = __bfloat162float(sc_hi[group]);
}

// A fragment of step st from a slice: {row g: k+0,1 | row g+8: k+0,1 | row g: k+2,3 | row g+8:
// k+2,3} of the thread's k = 32q + 4st.
template <int kBits>
__device__ __forceinline__ void a_fragment(const Slice<kBits>& s, int st, std::uint32_t (&a)[4]) {
  if constexpr (kBits == 4) {
    const int word = st / 2, p = 2 * (st % 2);
    a[0] = int4_pair(s.lo[word], p);
    a[1] = int4_pair(s.hi[word], p);
    a[2] = int4_pair(s.lo[word], p + 1);
    a[3] = int4_pair(s.hi[word], p + 1);
  } else {
    a[0] = int8_pair(s.lo[st], 0);
    a[1] = int8_pair(s.hi[st], 0);
    a[2] = int8_pair(s.lo[st], 2);
    a[3] = int8_pair(s.hi[st], 2);
  }
}

template <int kBits, int kTiles>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    weight_only_gemv(const std::uint8_t* __restrict__ w, const __nv_bfloat16* __restrict__ scales,
                     const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int n,
                     int k, int batch) {
  __shared__ float partial_sums[kWarpsPerBlock][kTiles][4][32];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  // Warps 2r and 2r + 1 share the 16 rows of row set r, one half of k each.
  const int row0 = 16 * (kRowSetsPerBlock * static_cast<int>(blockIdx.x) + warp / kSplitK);
  const int g = lane / 4, q = lane % 4;
  const int groups = k / kGroup;
  const int first_group = (warp % kSplitK) * (groups / kSplitK);
  const int end_group = first_group + groups / kSplitK;
  const std::size_t row_bytes = common::weight_only_row_bytes(kBits, k);
  const std::uint8_t* row_lo = w + static_cast<std::size_t>(row0 + g) * row_bytes;
  const std::uint8_t* row_hi = row_lo + 8 * row_bytes;
  const __nv_bfloat16* sc_lo = scales + static_cast<std::size_t>(row0 + g) * groups;
  const __nv_bfloat16* sc_hi = sc_lo + 8 * static_cast<std::size_t>(groups);
  // x rows of this thread's B fragments (batch index 8t + g), null where beyond the batch.
  const __nv_bfloat16* xs[kTiles];
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
    xs[t] = 8 * t + g < batch ? x + static_cast<std::size_t>(8 * t + g) * k + 32 * q : nullptr;

  float acc[kTiles][4] = {};
  Slice<kBits> ring[kPrefetch];
#pragma unroll
  for (int p = 0; p < kPrefetch; ++p)
    load_slice(ring[p], row_lo, row_hi, sc_lo, sc_hi, first_group + p, q);

  for (int group0 = first_group; group0 < end_group; group0 += kPrefetch) {
#pragma unroll
    for (int p = 0; p < kPrefetch; ++p) {
      const int group = group0 + p;
      const Slice<kBits> cur = ring[p];
      if (group + kPrefetch < end_group)
        load_slice(ring[p], row_lo, row_hi, sc_lo, sc_hi, group + kPrefetch, q);
      // The group's x for this thread: 32 bf16 (4 × 16-byte loads) per n8 tile, issued together
      // before the conversions so one L1 round trip covers all 8 steps.
      uint4 xg[kTiles][4];
#pragma unroll
      for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int v = 0; v < 4; ++v)
          xg[t][v] = xs[t] ? __ldg(reinterpret_cast<const uint4*>(xs[t] + group * kGroup) + v)
                           : make_uint4(0u, 0u, 0u, 0u);
      float part[kTiles][4] = {};
#pragma unroll
      for (int st = 0; st < 8; ++st) {
        std::uint32_t a[4];
        a_fragment(cur, st, a);
#pragma unroll
        for (int t = 0; t < kTiles; ++t) {
          const uint4& b = xg[t][st / 2];  // steps 2v, 2v + 1 read x[32q + 8v ..]: .x.y, .z.w
          mma_bf16_16816(part[t], a, st % 2 ? b.z : b.x, st % 2 ? b.w : b.y);
        }
      }
#pragma unroll
      for (int t = 0; t < kTiles; ++t) {
        acc[t][0] = fmaf(part[t][0], cur.scale_lo, acc[t][0]);
        acc[t][1] = fmaf(part[t][1], cur.scale_lo, acc[t][1]);
        acc[t][2] = fmaf(part[t][2], cur.scale_hi, acc[t][2]);
        acc[t][3] = fmaf(part[t][3], cur.scale_hi, acc[t][3]);
      }
    }
  }
  // The two halves' partial sums of each row set meet in shared memory; the first warp of the
  // pair adds them and stores. C fragment: c0, c1 = row g, batch 8t + 2q (+1); c2, c3 = row g+8.
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      partial_sums[warp][t][e][lane] = acc[t][e];
  __syncthreads();
  if (warp % kSplitK != 0)
    return;
#pragma unroll
  for (int t = 0; t < kTiles; ++t)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float sum = 0.0f;
#pragma unroll
      for (int v = 0; v < kSplitK; ++v)
        sum += partial_sums[warp + v][t][e][lane];
      const int b = 8 * t + 2 * q + (e % 2);
      const int row = row0 + g + 8 * (e / 2);
      if (b < batch)
        y[static_cast<std::size_t>(b) * n + row] = __float2bfloat16(sum);
    }
}

// W -> bf16, 8 weights per thread (one 32-bit INT4 word or 8 INT8 bytes), w = q · scale rounded
// once from fp32.
template <int kBits>
__global__ void __launch_bounds__(256)
    weight_only_dequantize(const std::uint8_t* __restrict__ w,
                           const __nv_bfloat16* __restrict__ scales, int n, int k,
                           __nv_bfloat16* __restrict__ out) {
  const std::size_t chunks = static_cast<std::size_t>(n) * (k / 8);
  const int groups = k / kGroup;
  for (std::size_t c = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < chunks;
       c += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t row = c / (k / 8);
    const int k0 = static_cast<int>(c % (k / 8)) * 8;
    const float scale = __bfloat162float(scales[row * groups + k0 / kGroup]);
    float v[8];
    if constexpr (kBits == 4) {
      const std::uint32_t word = __ldg(reinterpret_cast<const std::uint32_t*>(
          w + row * common::weight_only_row_bytes(4, k) + k0 / 2));
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        v[2 * p] = static_cast<float>(static_cast<int>((word >> (4 * p)) & 0xF) - 8);
        v[2 * p + 1] = static_cast<float>(static_cast<int>((word >> (4 * p + 16)) & 0xF) - 8);
      }
    } else {
      const uint2 bytes = __ldg(reinterpret_cast<const uint2*>(w + row * k + k0));
      const std::uint32_t words[2] = {bytes.x, bytes.y};
#pragma unroll
      for (int i = 0; i < 8; ++i)
        v[i] = static_cast<float>(static_cast<std::int8_t>((words[i / 4] >> (8 * (i % 4))) & 0xFF));
    }
    __nv_bfloat162 pairs[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
      pairs[i] = __floats2bfloat162_rn(v[2 * i] * scale, v[2 * i + 1] * scale);
    uint4 packed;
    std::memcpy(&packed, pairs, sizeof(packed));
    *reinterpret_cast<uint4*>(out + row * k + k0) = packed;
  }
}

template <int kBits>
cudaError_t launch_fused(const std::uint8_t* w, const __nv_bfloat16* scales, const __nv_bfloat16* x,
                         __nv_bfloat16* y, int n, int k, int batch, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(n / (16 * kRowSetsPerBlock))), block(32 * kWarpsPerBlock);
  if (batch <= 8)
    weight_only_gemv<kBits, 1><<<grid, block, 0, stream>>>(w, scales, x, y, n, k, batch);
  else
    weight_only_gemv<kBits, 2><<<grid, block, 0, stream>>>(w, scales, x, y, n, k, batch);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_weight_only_gemv_fused(int bits, const std::uint8_t* w,
                                          const __nv_bfloat16* scales, const __nv_bfloat16* x,
                                          __nv_bfloat16* y, int n, int k, int batch,
                                          cudaStream_t stream) {
  if ((bits != 4 && bits != 8) || n <= 0 || n % (16 * kRowSetsPerBlock) != 0 || k <= 0 ||
      k % (kGroup * kPrefetch * kSplitK) != 0 || batch < 1 || batch > kWeightOnlyMaxBatch)
    return cudaErrorInvalidValue;
  return bits == 4 ? launch_fused<4>(w, scales, x, y, n, k, batch, stream)
                   : launch_fused<8>(w, scales, x, y, n, k, batch, stream);
}

cudaError_t launch_weight_only_dequantize(int bits, const std::uint8_t* w,
                                          const __nv_bfloat16* scales, int n, int k,
                                          __nv_bfloat16* w_bf16, cudaStream_t stream) {
  if ((bits != 4 && bits != 8) || n <= 0 || k <= 0 || k % kGroup != 0)
    return cudaErrorInvalidValue;
  const std::size_t chunks = static_cast<std::size_t>(n) * (k / 8);
  const unsigned grid = static_cast<unsigned>(chunks / 256 + 1 > 65536 ? 65536 : chunks / 256 + 1);
  if (bits == 4)
    weight_only_dequantize<4><<<grid, 256, 0, stream>>>(w, scales, n, k, w_bf16);
  else
    weight_only_dequantize<8><<<grid, 256, 0, stream>>>(w, scales, n, k, w_bf16);
  return cudaGetLastError();
}

}  // namespace aisp::ch19
