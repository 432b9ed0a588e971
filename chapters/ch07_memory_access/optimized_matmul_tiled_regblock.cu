// Optimized (step 2): a register-blocked tile. What changed vs optimized_matmul_tiled: a block of
// 256 threads computes a 128×128 tile of C (not 32×32 with 1024 threads), each thread an 8×8
// block of it held in 64 registers. Per k, a thread loads 8 values of A's column and 8 of B's row
// from shared memory (four 16-byte loads) and does 64 FMAs with them: 16 FMAs per shared load
// instead of 1/2, so the FMA units, not shared memory, set the pace. The larger tile also cuts
// global loads per FMA by another 4× (each element brought into shared memory serves 128 products
// instead of 32).
// The tiles are copied with 16-byte global loads; A is stored transposed (k-major) so that a
// thread's 8 values of A are contiguous. Layout details, checked for bank conflicts:
//   - thread (tx, ty) = (tid % 16, tid / 16) owns rows {4ty..4ty+3, 64+4ty..64+4ty+3} and columns
//     {4tx..4tx+3, 64+4tx..64+4tx+3} of the tile: two float4 per operand, 64 floats apart, so the
//     8 lanes of a quarter-warp read 128 contiguous bytes of B (conflict-free) and one address of
//     A (a broadcast); C is stored as float4s, 256 contiguous bytes per half-warp and row;
//   - the transposed A tile rows are padded to 132 floats: the transposing stores hit bank
//     (16q + 4j + r) mod 32 for lane (q = tid % 4, r = tid / 4): 2-way at worst (q and q + 2), on
//     8 scalar stores per thread per k-step, against 64 conflict-free 16-byte loads.
// Each dot product is still summed over k in ascending order, one FMA per term.
// Where it stands: the classic SGEMM ladder (siboehm, A6000) puts this step at ~70–80% of cuBLAS;
// what is left is warp tiling, double-buffered loads and, on Hopper, tensor cores (chapter 10).
// Bytes: 3 · 4096² · 4 = 192 MiB at the least; FLOPs 2 · 4096³ = 137 G. Ceiling: FP32 SIMT.
#include <cstdint>
#include <stdexcept>

#include "matmul_tiled_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 16;
constexpr int kThreads = 256;         // 16 × 16, each an 8×8 block of C
constexpr int kHalf = 64;             // a thread's two 4-wide groups are this far apart
constexpr int kAPitch = kBlockM + 4;  // transposed A tile row: +4 floats, keeps float4 alignment
constexpr int kLoadsA = kBlockM * kBlockK / 4 / kThreads;  // float4 per thread per k-step: 2
constexpr int kLoadsB = kBlockK * kBlockN / 4 / kThreads;  // 2
static_assert(kLoadsA * kThreads * 4 == kBlockM * kBlockK, "A tile must split evenly");
static_assert(kLoadsB * kThreads * 4 == kBlockK * kBlockN, "B tile must split evenly");

__global__ void __launch_bounds__(kThreads, 2)
    matmul_regblock(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                    int n, int k) {
  __shared__ __align__(16) float a_tile[kBlockK][kAPitch];  // a_tile[kk][m] = A[m0 + m][k0 + kk]
  __shared__ __align__(16) float b_tile[kBlockK][kBlockN];  // b_tile[kk][j] = B[k0 + kk][n0 + j]

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % 16;
  const int ty = tid / 16;
  const std::size_t m0 = static_cast<std::size_t>(blockIdx.y) * kBlockM;
  const std::size_t n0 = static_cast<std::size_t>(blockIdx.x) * kBlockN;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    // All four 16-byte global loads first, then the shared stores.
    float4 va[kLoadsA], vb[kLoadsB];
#pragma unroll
    for (int p = 0; p < kLoadsA; ++p) {
      const int f = tid + p * kThreads;  // float4 number within the 128×16 A tile
      const int r = f / 4, q = f % 4;    // row r, k-columns 4q..4q+3
      va[p] = *reinterpret_cast<const float4*>(a + (m0 + r) * k + k0 + 4 * q);
    }
#pragma unroll
    for (int p = 0; p < kLoadsB; ++p) {
      const int f = tid + p * kThreads;    // float4 number within the 16×128 B tile
      const int kr = f / 32, c4 = f % 32;  // row kr, columns 4c4..4c4+3
      vb[p] = *reinterpret_cast<const float4*>(b + (k0 + kr) * static_cast<std::size_t>(n) + n0 +
                                               4 * c4);
    }
#pragma unroll
    for (int p = 0; p < kLoadsA; ++p) {
      const int f = tid + p * kThreads;
      const int r = f / 4, q = f % 4;
      a_tile[4 * q + 0][r] = va[p].x;
      a_tile[4 * q + 1][r] = va[p].y;
      a_tile[4 * q + 2][r] = va[p].z;
      a_tile[4 * q + 3][r] = va[p].w;
    }
#pragma unroll
    for (int p = 0; p < kLoadsB; ++p) {
      const int f = tid + p * kThreads;
      *reinterpret_cast<float4*>(&b_tile[f / 32][4 * (f % 32)]) = vb[p];
    }
    __syncthreads();

#pragma unroll
    for (int kk = 0; kk < kBlockK; ++kk) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[kk][4 * ty]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[kk][kHalf + 4 * ty]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[kk][4 * tx]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[kk][kHalf + 4 * tx]);
      const float av[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float bv[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();  // the tiles are overwritten next step
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const std::size_t row = m0 + (i < 4 ? 4 * ty + i : kHalf + 4 * ty + (i - 4));
    auto* c_row = reinterpret_cast<float4*>(c + row * n + n0);
    c_row[tx] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    c_row[kHalf / 4 + tx] = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

}  // namespace

struct MatmulRegisterBlocked : MatmulTiledProblem {
  void setup(aisp::Context& ctx) override {
    MatmulTiledProblem::setup(ctx);
    // Rows start at multiples of 4096·4 bytes, so base alignment is all the float4 accesses need.
    if (reinterpret_cast<std::uintptr_t>(a()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(b()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(c()) % 16 != 0)
      throw std::invalid_argument("matmul_tiled_regblock: A, B and C must be 16-byte aligned for "
                                  "float4 accesses");
  }

  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kBlockN, m() / kBlockM);
    matmul_regblock<<<grid, kThreads, 0, ctx.stream()>>>(a(), b(), c(), n(), k());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::MatmulRegisterBlocked)
