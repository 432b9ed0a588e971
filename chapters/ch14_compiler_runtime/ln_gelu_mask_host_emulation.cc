// Not part of the suite (a .cc file: the build globs only .cu and .cpp). A host emulation of the
// fused ln_gelu_mask kernel (fused_ln_gelu_mask_source.cuh), to check its index math (one warp
// per row), its bounds guards, its warp sums and its shared-memory staging of gamma and beta
// without a GPU:
//   cd chapters/ch14_compiler_runtime && K=/tmp/fused_ln_gelu_mask_kernel.inc
//   sed -n '/^\/\/ The sum over a warp/,/^)$/p' fused_ln_gelu_mask_source.cuh | sed '$d' > $K
//   g++ -std=c++20 -O2 -pthread -I/tmp -o /tmp/lgm ln_gelu_mask_host_emulation.cc && /tmp/lgm
// The warp sum and the kernel are the kernel text itself (the sed lines cut them
// out of the header); the helpers written in inline PTX (bf16 packing, rcp, ex2, prmt) and the
// GELU that calls them are re-written below for the host, to the same formulas. Every CUDA thread
// is a std::thread; __syncthreads is a std::barrier over the block, __shfl_xor_sync an exchange
// through memory with a barrier over the warp; the blocks of a grid run one after another. The
// kernel runs with both row-length modes (kCols > 0 as NVRTC builds it, kCols == 0 as nvcc does),
// on row counts that leave the blocks uneven numbers of rows and on rows shorter than a block's
// chunks, and every element is compared with a float64 LayerNorm → exact-erf GELU → mask.
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

struct uint4 {
  unsigned int x, y, z, w;
};
struct uint2 {
  unsigned int x, y;
};
inline uint4 make_uint4(unsigned int a, unsigned int b, unsigned int c, unsigned int d) {
  return {a, b, c, d};
}
inline uint2 make_uint2(unsigned int a, unsigned int b) { return {a, b}; }
struct float4 {
  float x, y, z, w;
};
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }

struct Index {
  unsigned int x;
};
thread_local Index threadIdx, blockIdx;
Index gridDim;

#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static  // one block runs at a time

constexpr int kMaxWarps = 32;
std::barrier<>* block_barrier = nullptr;
std::barrier<>* warp_barriers[kMaxWarps] = {};
float warp_exchange[kMaxWarps][32];

inline void __syncthreads() { block_barrier->arrive_and_wait(); }

inline float __shfl_xor_sync(unsigned int, float v, int offset) {
  const unsigned int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  warp_exchange[warp][lane] = v;
  warp_barriers[warp]->arrive_and_wait();
  const float other = warp_exchange[warp][lane ^ static_cast<unsigned int>(offset)];
  warp_barriers[warp]->arrive_and_wait();
  return other;
}

inline float __uint_as_float(unsigned int u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline float fmaf(float a, float b, float c) { return std::fma(a, b, c); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

inline unsigned int bf16_bits(float f) {  // round to nearest even (finite values)
  unsigned int u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return u >> 16;
}

// The kernel text's helpers, for the host.
inline float aisp_bf16_low_to_float(unsigned int word) { return __uint_as_float(word << 16); }
inline float aisp_bf16_high_to_float(unsigned int word) {
  return __uint_as_float(word & 0xffff0000u);
}
inline unsigned int aisp_pack_bf16x2(float lo, float hi) {
  return bf16_bits(lo) | (bf16_bits(hi) << 16);
}
inline float aisp_gelu_erf(float h) {
  const float t = 1.0f / fmaf(0.2316418882663604f, std::fabs(h), 1.0f);
  const float q = t * fmaf(t,
                           fmaf(t, fmaf(t, fmaf(t, 0.5307027145f, -0.7265760135f), 0.7107068705f),
                                -0.142248368f),
                           0.127414796f);
  const float gaussian = std::exp2(h * (h * -0.7213475204444817f));
  return fmaf(std::fabs(h), fmaf(-q, gaussian, 0.5f), 0.5f * h);
}
inline uint4 aisp_load_streaming(const uint4* address) { return *address; }
inline uint2 aisp_load_streaming(const uint2* address) { return *address; }
inline void aisp_copy_to_shared(void* destination, const void* source) {
  std::memcpy(destination, source, 16);
}
inline void aisp_wait_copies() {}
inline float aisp_bf16_low_to_float_for_sum(unsigned int word) {
  return aisp_bf16_low_to_float(word);
}
inline float aisp_bf16_high_to_float_for_sum(unsigned int word) {
  return aisp_bf16_high_to_float(word);
}
inline float aisp_bf16_low_to_float_for_squares(unsigned int word) {
  return aisp_bf16_low_to_float(word);
}
inline float aisp_bf16_high_to_float_for_squares(unsigned int word) {
  return aisp_bf16_high_to_float(word);
}
inline unsigned int aisp_nonzero_byte_signs(unsigned int word) {
  return ((word & 0x7f7f7f7fu) + 0x7f7f7f7fu) | word;
}
inline unsigned int aisp_spread_byte_signs(unsigned int signs, unsigned int selector) {
  unsigned int keep = 0;  // prmt.b32 keep, signs, 0, selector (default mode)
  for (int i = 0; i < 4; ++i) {
    const unsigned int nibble = (selector >> (4 * i)) & 0xfu;
    const unsigned long long source = signs;  // bytes 4-7 (the second operand) are zero
    unsigned int byte = static_cast<unsigned int>(source >> (8 * (nibble & 7u))) & 0xffu;
    if (nibble & 8u)
      byte = (byte & 0x80u) != 0 ? 0xffu : 0u;
    keep |= byte << (8 * i);
  }
  return keep;
}

#include "fused_ln_gelu_mask_kernel.inc"

namespace {

double bf16_value(unsigned short bits) { return __uint_as_float(unsigned{bits} << 16); }

// Runs the kernel over rows × cols, one warp per row; returns the number of elements off by
// more than a bf16 half-ulp (plus 1e-3) from the float64 chain.
template <int kCols, int kThreads, int kMaxCols>
int check(unsigned int rows, int cols, unsigned int seed) {
  const unsigned int grid = (rows + kThreads / 32 - 1) / (kThreads / 32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> x_dist(-2.0f, 3.0f), gamma_dist(0.5f, 1.5f),
      beta_dist(-0.5f, 0.5f);
  const std::size_t count = std::size_t{rows} * static_cast<std::size_t>(cols);
  std::vector<unsigned short> x(count), gamma(cols), beta(cols), y(count, 0x7fc1);  // NaN poison
  std::vector<unsigned char> mask(count);
  for (std::size_t i = 0; i < count; ++i)  // every third row offset by 8
    x[i] =
        static_cast<unsigned short>(bf16_bits(x_dist(rng) + ((i / cols) % 3 == 2 ? 8.0f : 0.0f)));
  for (int c = 0; c < cols; ++c) {
    gamma[c] = static_cast<unsigned short>(bf16_bits(gamma_dist(rng)));
    beta[c] = static_cast<unsigned short>(bf16_bits(beta_dist(rng)));
  }
  const unsigned char mask_values[4] = {0, 1, 0x80, 0x37};  // any non-zero byte keeps
  for (auto& m : mask)
    m = mask_values[rng() % 4];

  gridDim.x = grid;
  std::barrier<> block(kThreads);
  block_barrier = &block;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  for (int w = 0; w < kThreads / 32; ++w) {
    warps.push_back(std::make_unique<std::barrier<>>(32));
    warp_barriers[w] = warps.back().get();
  }
  for (unsigned int b = 0; b < grid; ++b) {
    std::vector<std::thread> threads;
    for (unsigned int t = 0; t < static_cast<unsigned int>(kThreads); ++t)
      threads.emplace_back([&, t, b] {
        threadIdx.x = t;
        blockIdx.x = b;
        fused_ln_gelu_mask<kCols, kThreads, kMaxCols, 1>(
            reinterpret_cast<const uint4*>(x.data()), reinterpret_cast<const uint2*>(mask.data()),
            reinterpret_cast<const uint4*>(gamma.data()),
            reinterpret_cast<const uint4*>(beta.data()), reinterpret_cast<uint4*>(y.data()), rows,
            cols, 1e-5f);
      });
    for (auto& thread : threads)
      thread.join();
  }

  int bad = 0;
  double worst = 0;
  for (unsigned int r = 0; r < rows; ++r) {
    const std::size_t start = std::size_t{r} * static_cast<std::size_t>(cols);
    double sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += bf16_value(x[start + c]);
    const double mean = sum / cols;
    double squares = 0;
    for (int c = 0; c < cols; ++c)
      squares += (bf16_value(x[start + c]) - mean) * (bf16_value(x[start + c]) - mean);
    const double rstd = 1.0 / std::sqrt(squares / cols + 1e-5);
    for (int c = 0; c < cols; ++c) {
      const double h =
          (bf16_value(x[start + c]) - mean) * rstd * bf16_value(gamma[c]) + bf16_value(beta[c]);
      const double expected =
          mask[start + c] != 0 ? 0.5 * h * (1.0 + std::erf(h / std::sqrt(2.0))) : 0.0;
      const double got = bf16_value(y[start + c]);
      const double ratio = std::fabs(got - expected) / (1e-3 + 4e-3 * std::fabs(expected));
      if (!(ratio <= 1.0)) {
        if (bad < 5)
          std::printf("  row %u col %d: got %.6g, expected %.6g\n", r, c, got, expected);
        ++bad;
      }
      if (ratio > worst)
        worst = ratio;
    }
  }
  std::printf("kCols=%d kMaxCols=%d rows=%u cols=%d grid=%u: %d off, largest |diff| / (1e-3 + "
              "4e-3 |expected|) = %.3f\n",
              kCols, kMaxCols, rows, cols, grid, bad, worst);
  return bad;
}

}  // namespace

int main() {
  int bad = 0;
  bad += check<4096, 128, 4096>(7, 4096, 1);  // the NVRTC build's shape; the last warp idle
  bad += check<0, 128, 4096>(7, 4096, 2);     // the nvcc build, full rows
  bad += check<0, 128, 4096>(5, 1000, 3);     // 125 chunks: lanes 29-31 have 3, the others 4
  bad += check<0, 128, 4096>(4, 8, 4);        // one chunk per row: lane 0 alone
  bad += check<0, 128, 4096>(9, 3064, 5);     // 383 chunks: uneven chunks per lane
  bad += check<1024, 128, 1024>(6, 1024, 6);  // 4 chunks per lane
  std::printf("%s\n", bad == 0 ? "all elements within a bf16 half-ulp + 1e-3" : "FAILED");
  return bad == 0 ? 0 : 1;
}
