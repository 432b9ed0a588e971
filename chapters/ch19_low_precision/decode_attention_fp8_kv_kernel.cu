// Decode attention over a BF16 or an FP8 e4m3 KV cache: one query token per (sequence, query
// head), o = softmax(q·Kᵀ / sqrt(D)) · V, D 128, 4 query heads per KV head (GQA), split-K over
// 512-token chunks exactly as chapter 18's kernel (decode_attention.cu: one block per (sequence,
// KV head, chunk) serving the group's 4 query heads, FP32 partial outputs with their log-sum-exp,
// chapter 18's combine kernel). Memory-bound: every cache row is read once; the ceiling is HBM
// bandwidth on the K and V bytes, 2 bytes per element in BF16 and 1 in e4m3, so an FP8 cache can
// at best halve the time.
//
// What changes against chapter 18's kernel, and why: halving the bytes doubles the arithmetic per
// byte, so the instructions per cache row matter twice as much. Chapter 18 puts the 4 query heads
// on the m16n8k16 MMA's M (16 rows, 12 of them zero) and needs a movmatrix per V register to
// transpose V. Here the roles are swapped ("key-major"):
//   Sᵀ = K·Qᵀ    A = 16 keys × 16 dims of K (as stored: a lane's register holds two dims of one
//                key), B = Qᵀ (the 4 heads on N, 4 of 8 columns zero): 8 MMAs per 16 keys (16 in
//                chapter 18).
//   Oᵀ += Vᵀ·Pᵀ  A = 16 dims × 16 keys of Vᵀ: a register must hold two keys of one dim, so a lane
//                loads 16 bytes of 4 keys (2q, 2q+1, 2q+8, 2q+9) and pairs them with one byte
//                permute (PRMT) per register, no cross-lane move; B = Pᵀ, whose Sᵀ accumulator
//                layout is turned into the B layout by 2 movmatrix per 16 keys. 8 MMAs per 16 keys.
// FP8: e4m3 converts exactly to FP16 (cvt.rn.f16x2.e4m3x2, two values per instruction), so the MMAs
// run in FP16 with FP32 accumulation; q is converted to FP16 (exact for |q| in [2^-14, 65504],
// BF16's 8-bit mantissa fits FP16's 11), p in [0, 1] is packed to FP16 (finer than BF16). The
// per-KV-head factors are applied outside the MMAs: K's in the softmax scale, V's once to the
// chunk's partial output. BF16: the same structure without conversions (the control that shows
// what the restructuring alone is worth on the BF16 cache).
// Per warp step a lane issues 16 loads of 16 bytes (BF16: 16 keys; FP8: 32 keys, two 16-key
// sub-steps under one softmax update), so both kernels keep the same bytes in flight per warp.
// The dims of K and Q are permuted identically (a dot product does not care in which order they
// are summed); the dims a lane's O registers hold follow from the V loads (dim_of below).
#include "decode_attention_fp8_kv_kernel.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "../common/attention_warp_fragments.cuh"
#include "../common/bf16_pack.cuh"
#include "../common/mma_sync.cuh"

namespace aisp::ch19 {
namespace {

constexpr int kD = 128;
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kGroup = 4;  // query heads per KV head: columns 0..3 of the n8 tile
constexpr float kLog2e = 1.4426950408889634f;

template <bool kFp8>
struct CacheLayout {
  static constexpr int kRowBytes = kD * (kFp8 ? 1 : 2);  // 128 or 256
  static constexpr int kSub = kFp8 ? 2 : 1;              // 16-key sub-steps per warp step
  static constexpr int kStepKeys = 16 * kSub;
  static constexpr int kKLoads = kRowBytes / 64;   // 16-byte K loads per lane and key (2 or 4)
  static constexpr int kVLoads = kRowBytes / 128;  // 16-byte V loads per lane and key (1 or 2)
};

__device__ __forceinline__ std::uint32_t word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// Two e4m3 bytes of x -> FP16x2 (exact): lo takes bytes 0, 1; hi bytes 2, 3 (lower byte to the
// lower half).
__device__ __forceinline__ void e4m3x4_to_f16x2x2(std::uint32_t x, std::uint32_t& lo,
                                                  std::uint32_t& hi) {
  asm("{\n\t.reg .b16 l, h;\n\t"
      "mov.b32 {l, h}, %2;\n\t"
      "cvt.rn.f16x2.e4m3x2 %0, l;\n\t"
      "cvt.rn.f16x2.e4m3x2 %1, h;\n\t}"
      : "=r"(lo), "=r"(hi)
      : "r"(x));
}

// A BF16x2 word -> FP16x2 (round to nearest; exact in FP16's normal range).
__device__ __forceinline__ std::uint32_t bf16x2_to_f16x2(std::uint32_t x) {
  __nv_bfloat162 b;
  std::memcpy(&b, &x, sizeof(b));
  const float2 f = __bfloat1622float2(b);
  const __half2 h = __floats2half2_rn(f.x, f.y);
  std::uint32_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

__device__ __forceinline__ std::uint32_t pack_f16x2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  std::uint32_t bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

__device__ __forceinline__ void mma_f16(float (&d)[4], const std::uint32_t (&a)[4],
                                        std::uint32_t b0, std::uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <bool kFp8>
__device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                    std::uint32_t b1) {
  if constexpr (kFp8)
    mma_f16(d, a, b0, b1);
  else
    common::mma_m16n8k16_bf16(d, a, b0, b1);
}

// The output dim held by O register (m-tile t, row half r: row g or g + 8) of lane group g.
template <bool kFp8>
__device__ __forceinline__ int dim_of(int t, int r, int g) {
  if constexpr (kFp8)
    return 16 * g + 2 * t + r;  // V load: bytes 16g..16g+15 = dims 16g..; word t/2, bytes 2(t%2)+r
  else
    return 64 * (t / 4) + 8 * g + 2 * (t % 4) + r;  // loads l = t/4 at dims 64l + 8g, word t%4
}

// K as the A fragment of k-step s: keys g (kg) and g + 8 (kg8), 4 dims each.
template <bool kFp8>
__device__ __forceinline__ void k_fragment(std::uint32_t (&a)[4], const uint4* kg, const uint4* kg8,
                                           int s) {
  if constexpr (kFp8) {
    // load s / 4 (dims 16(4c+q)..), word s % 4: dims +4w .. +4w+3, as two FP16x2.
    e4m3x4_to_f16x2x2(word(kg[s / 4], s % 4), a[0], a[2]);
    e4m3x4_to_f16x2x2(word(kg8[s / 4], s % 4), a[1], a[3]);
  } else {
    // load s / 2 (dims 8(4c+q)..), words 2h and 2h + 1 (h = s % 2): dims +4h .. +4h+3.
    a[0] = word(kg[s / 2], 2 * (s % 2));
    a[2] = word(kg[s / 2], 2 * (s % 2) + 1);
    a[1] = word(kg8[s / 2], 2 * (s % 2));
    a[3] = word(kg8[s / 2], 2 * (s % 2) + 1);
  }
}

// Vᵀ as the A fragment of m-tile t: rows (dims) dim_of(t, 0|1, g), keys 2q, 2q+1 (v[0], v[1]) and
// 2q+8, 2q+9 (v[2], v[3]); a register pairs one dim of two keys (byte permute).
template <bool kFp8>
__device__ __forceinline__ void v_fragment(std::uint32_t (&a)[4],
                                           const uint4 (&v)[4][CacheLayout<kFp8>::kVLoads], int t) {
  if constexpr (kFp8) {
    // word w = t/2 holds dims 16g + 4w .. +3; the selector pairs byte 2(t%2) (row g) and byte
    // 2(t%2) + 1 (row g + 8) of the two keys.
    const int w = t / 2;
    const std::uint32_t selector = (t % 2) ? 0x7362u : 0x5140u;
    const std::uint32_t ab = __byte_perm(word(v[0][0], w), word(v[1][0], w), selector);
    const std::uint32_t cd = __byte_perm(word(v[2][0], w), word(v[3][0], w), selector);
    e4m3x4_to_f16x2x2(ab, a[0], a[1]);
    e4m3x4_to_f16x2x2(cd, a[2], a[3]);
  } else {
    const int l = t / 4, w = t % 4;
    a[0] = __byte_perm(word(v[0][l], w), word(v[1][l], w), 0x5410u);  // low halves: dim even
    a[1] = __byte_perm(word(v[0][l], w), word(v[1][l], w), 0x7632u);  // high halves: dim odd
    a[2] = __byte_perm(word(v[2][l], w), word(v[3][l], w), 0x5410u);
    a[3] = __byte_perm(word(v[2][l], w), word(v[3][l], w), 0x7632u);
  }
}

template <bool kFp8>
__global__ void __launch_bounds__(kThreads)
    decode_key_major_kernel(DecodeShape shape, ch18::DecodeTensors t,
                            const std::uint8_t* __restrict__ k_cache,
                            const std::uint8_t* __restrict__ v_cache,
                            const float* __restrict__ k_dequant,
                            const float* __restrict__ v_dequant, int chunks_per_row,
                            float softmax_scale_log2) {
  using L = CacheLayout<kFp8>;
  __shared__ float merged_o[kWarps][kGroup][kD];
  __shared__ float merged_max[kWarps][kGroup];
  __shared__ float merged_sum[kWarps][kGroup];

  const int b = static_cast<int>(blockIdx.z);
  const int chunk_index = static_cast<int>(blockIdx.x);
  const int length = t.cache_lengths[b];
  const int t0 = chunk_index * ch18::kDecodeChunk;
  if (t0 >= length)
    return;
  const int t1 = length < t0 + ch18::kDecodeChunk ? length : t0 + ch18::kDecodeChunk;
  const int kv_head = static_cast<int>(blockIdx.y);
  const int first_q_head = kv_head * kGroup;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane >> 2, q = lane & 3;
  const float scale_log2 = softmax_scale_log2 * (kFp8 ? k_dequant[kv_head] : 1.0f);
  const std::uint8_t* k_rows = k_cache + (static_cast<long long>(b) * shape.kv_heads + kv_head) *
                                             shape.max_length *
                                             static_cast<long long>(L::kRowBytes);
  const std::uint8_t* v_rows = v_cache + (static_cast<long long>(b) * shape.kv_heads + kv_head) *
                                             shape.max_length *
                                             static_cast<long long>(L::kRowBytes);
  const auto load_16 = [](const std::uint8_t* p) { return *reinterpret_cast<const uint4*>(p); };

  // Qᵀ as B fragments (head g < 4; columns 4..7 zero), dims permuted as k_fragment's.
  std::uint32_t qb[kD / 16][2];
  {
    uint4 raw[4] = {};  // BF16 q: FP8 path dims 16(4c+q) + 0..15 (c = 0, 1); BF16 8(4c+q) + 0..7
    if (g < kGroup) {
      const __nv_bfloat16* q_row =
          t.q + (static_cast<long long>(b) * shape.q_heads + first_q_head + g) * kD;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int dim = kFp8 ? 16 * (4 * (i / 2) + q) + 8 * (i % 2) : 8 * (4 * i + q);
        raw[i] = *reinterpret_cast<const uint4*>(q_row + dim);
      }
    }
#pragma unroll
    for (int s = 0; s < kD / 16; ++s) {
      if constexpr (kFp8) {
        // k-step s = 4c + w: dims 16(4c+q) + 4w + 0..3 = BF16 words 2w, 2w+1 of the 16-dim span.
        const int c = s / 4, w = s % 4;
        qb[s][0] = bf16x2_to_f16x2(word(raw[2 * c + w / 2], 2 * (w % 2)));
        qb[s][1] = bf16x2_to_f16x2(word(raw[2 * c + w / 2], 2 * (w % 2) + 1));
      } else {
        qb[s][0] = word(raw[s / 2], 2 * (s % 2));
        qb[s][1] = word(raw[s / 2], 2 * (s % 2) + 1);
      }
    }
  }

  float o[8][4] = {};  // Oᵀ m-tile t: [0] (dim_of(t,0), head 2q) [1] (.., 2q+1) [2], [3] row g+8
  float row_max[2] = {-INFINITY, -INFINITY};  // heads 2q, 2q+1, log2 units; uniform over g
  float row_sum[2] = {0.0f, 0.0f};            // this lane's keys only; summed over g at the end
  const int steps = (t1 - t0 + L::kStepKeys - 1) / L::kStepKeys;
  for (int step = warp; step < steps; step += kWarps) {
    const int base = t0 + step * L::kStepKeys;
    uint4 kr[L::kSub][2][L::kKLoads] = {};
    uint4 vr[L::kSub][4][L::kVLoads] = {};
#pragma unroll
    for (int sb = 0; sb < L::kSub; ++sb) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int key = base + 16 * sb + g + 8 * j;
        if (key < t1)
#pragma unroll
          for (int c = 0; c < L::kKLoads; ++c)
            kr[sb][j][c] =
                load_16(k_rows + static_cast<long long>(key) * L::kRowBytes + 16 * (4 * c + q));
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int key = base + 16 * sb + 2 * q + (j & 1) + 8 * (j >> 1);
        if (key < t1)
#pragma unroll
          for (int l = 0; l < L::kVLoads; ++l)
            vr[sb][j][l] =
                load_16(v_rows + static_cast<long long>(key) * L::kRowBytes + 128 * l + 16 * g);
      }
    }

    // Sᵀ: [0] (key g, head 2q), [1] (key g, head 2q+1), [2], [3] the same for key g + 8.
    float x[L::kSub][4];
#pragma unroll
    for (int sb = 0; sb < L::kSub; ++sb) {
      float s[4] = {};
#pragma unroll
      for (int ks = 0; ks < kD / 16; ++ks) {
        std::uint32_t a[4];
        k_fragment<kFp8>(a, kr[sb][0], kr[sb][1], ks);
        mma<kFp8>(s, a, qb[ks][0], qb[ks][1]);
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = base + 16 * sb + g + 8 * (e >> 1);
        x[sb][e] = key < t1 ? s[e] * scale_log2 : -INFINITY;
      }
    }
    float correction[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float m = -INFINITY;
#pragma unroll
      for (int sb = 0; sb < L::kSub; ++sb)
        m = fmaxf(m, fmaxf(x[sb][h], x[sb][2 + h]));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 4));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 8));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 16));
      const float new_max = fmaxf(row_max[h], m);  // finite: the step's first key is valid
      correction[h] = common::exp2_approx(row_max[h] - new_max);
      row_max[h] = new_max;
    }
    float p[L::kSub][4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float sum = 0.0f;
#pragma unroll
      for (int sb = 0; sb < L::kSub; ++sb) {
        p[sb][h] = common::exp2_approx(x[sb][h] - row_max[h]);
        p[sb][2 + h] = common::exp2_approx(x[sb][2 + h] - row_max[h]);
        sum += p[sb][h] + p[sb][2 + h];
      }
      row_sum[h] = row_sum[h] * correction[h] + sum;
    }
    if (__any_sync(0xffffffffu, correction[0] != 1.0f || correction[1] != 1.0f)) {
#pragma unroll
      for (int mt = 0; mt < 8; ++mt) {
        o[mt][0] *= correction[0];
        o[mt][1] *= correction[1];
        o[mt][2] *= correction[0];
        o[mt][3] *= correction[1];
      }
    }
#pragma unroll
    for (int sb = 0; sb < L::kSub; ++sb) {
      // Pᵀ as B fragments: (key g | g+8, heads 2q, 2q+1) transposed to (keys 2q, 2q+1 | +8, head
      // g).
      const std::uint32_t lo =
          kFp8 ? pack_f16x2(p[sb][0], p[sb][1]) : common::pack_bf16x2(p[sb][0], p[sb][1]);
      const std::uint32_t hi =
          kFp8 ? pack_f16x2(p[sb][2], p[sb][3]) : common::pack_bf16x2(p[sb][2], p[sb][3]);
      const std::uint32_t b0 = common::movmatrix_trans(lo), b1 = common::movmatrix_trans(hi);
#pragma unroll
      for (int mt = 0; mt < 8; ++mt) {
        std::uint32_t a[4];
        v_fragment<kFp8>(a, vr[sb], mt);
        mma<kFp8>(o[mt], a, b0, b1);
      }
    }
  }

  // Merge the warps' softmax states of the 4 heads (lanes q < 2 hold heads 2q, 2q + 1).
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 4);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 8);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 16);
  }
  if (q < kGroup / 2) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int mt = 0; mt < 8; ++mt) {
        merged_o[warp][2 * q + h][dim_of<kFp8>(mt, 0, g)] = o[mt][h];
        merged_o[warp][2 * q + h][dim_of<kFp8>(mt, 1, g)] = o[mt][2 + h];
      }
      if (g == 0) {
        merged_max[warp][2 * q + h] = row_max[h];
        merged_sum[warp][2 * q + h] = row_sum[h];
      }
    }
  }
  __syncthreads();
  const float v_factor = kFp8 ? v_dequant[kv_head] : 1.0f;
  for (int i = static_cast<int>(threadIdx.x); i < kGroup * kD; i += kThreads) {
    const int h = i / kD, d = i % kD;
    float m = merged_max[0][h];
#pragma unroll
    for (int w = 1; w < kWarps; ++w)
      m = fmaxf(m, merged_max[w][h]);
    float sum = 0.0f, value = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float weight = common::exp2_approx(merged_max[w][h] - m);  // 0 for an idle warp
      sum += merged_sum[w][h] * weight;
      value += merged_o[w][h][d] * weight;
    }
    const long long partial_row =
        (static_cast<long long>(b) * shape.q_heads + first_q_head + h) * chunks_per_row +
        chunk_index;
    t.partial_o[partial_row * kD + d] = value / sum * v_factor;
    if (d == 0)
      t.partial_lse[partial_row] = m + __log2f(sum);
  }
}

void check_shape(const DecodeShape& shape) {
  if (shape.head_dim != kD || shape.kv_heads <= 0 || shape.q_heads != kGroup * shape.kv_heads)
    throw std::invalid_argument(
        "key-major decode attention: built for head_dim 128 and 4 query heads per KV head (got "
        "head_dim " +
        std::to_string(shape.head_dim) + ", " + std::to_string(shape.q_heads) +
        " query heads over " + std::to_string(shape.kv_heads) + " KV heads)");
}

template <bool kFp8>
void launch(const DecodeShape& shape, const ch18::DecodeTensors& t, const std::uint8_t* k,
            const std::uint8_t* v, const float* k_dequant, const float* v_dequant,
            cudaStream_t stream) {
  check_shape(shape);
  const int chunks = (shape.max_length + ch18::kDecodeChunk - 1) / ch18::kDecodeChunk;
  const dim3 grid(static_cast<unsigned>(chunks), static_cast<unsigned>(shape.kv_heads),
                  static_cast<unsigned>(shape.batch));
  decode_key_major_kernel<kFp8><<<grid, kThreads, 0, stream>>>(
      shape, t, k, v, k_dequant, v_dequant, chunks, shape.softmax_scale() * kLog2e);
  ch18::launch_decode_combine(shape, t, stream);
}

}  // namespace

void launch_decode_key_major_bf16(const DecodeShape& shape, const ch18::DecodeTensors& t,
                                  cudaStream_t stream) {
  launch<false>(shape, t, reinterpret_cast<const std::uint8_t*>(t.k),
                reinterpret_cast<const std::uint8_t*>(t.v), nullptr, nullptr, stream);
}

void launch_decode_key_major_e4m3(const DecodeShape& shape, const ch18::DecodeTensors& t,
                                  const std::uint8_t* k_e4m3, const std::uint8_t* v_e4m3,
                                  const float* k_dequant, const float* v_dequant,
                                  cudaStream_t stream) {
  launch<true>(shape, t, k_e4m3, v_e4m3, k_dequant, v_dequant, stream);
}

}  // namespace aisp::ch19
