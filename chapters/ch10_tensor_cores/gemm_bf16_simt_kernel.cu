// Rung 0 (the baseline): a register-blocked SIMT GEMM — no tensor cores. BF16 operands are loaded
// 16 bytes (8 values) at a time, widened to fp32 into shared memory, and multiplied with fp32
// FMAs; the result is rounded to bf16 once at the end. This is chapter 7's register-blocked
// matmul (optimized_matmul_tiled_regblock) carried over to this problem's types and layouts:
// a block of 256 threads computes a 128×128 tile of C, each thread an 8×8 block of it in 64
// registers, stepping k by 16.
// Both operands are K-major here (A is M×K, B is N×K), so both are transposed on the way into
// shared memory (a_tile[k][m], b_tile[k][n]): a thread's 8 rows (or columns) are then contiguous
// and read as two float4 per operand per k. Rows are padded to 132 floats; the transposing
// stores conflict 2-way (two lanes share a row), against 16 conflict-free float4 loads per
// thread per k-step.
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor (the problem's); as a SIMT
// kernel it is bounded by the FP32 FMA rate (50.6 TFLOP/s for cuBLAS SGEMM on the H200).
#include <cstddef>
#include <cstdint>

#include "../common/bf16_pack.cuh"
#include "gemm_bf16_kernels.cuh"
#include "gemm_bf16_shape.hpp"

namespace aisp::ch10 {
namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 16;
constexpr int kThreads = 256;  // 16 × 16 threads, each an 8×8 block of C
constexpr int kHalf = 64;      // a thread's two 4-wide groups are this far apart
constexpr int kPitch = kBlockM + 4;
static_assert(kBlockM * kBlockK / 8 == kThreads && kBlockN * kBlockK / 8 == kThreads,
              "one 16-byte load per thread per operand per k-step");

// 8 bf16 (one 16-byte load) widened to fp32.
__device__ __forceinline__ void widen(const uint4& v, float (&out)[8]) {
  const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(pairs[i]);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}

__global__ void __launch_bounds__(kThreads, 2)
    gemm_bf16_simt(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                   __nv_bfloat16* __restrict__ c, int n, int k) {
  __shared__ __align__(16) float a_tile[kBlockK][kPitch];  // a_tile[kk][i] = A[m0 + i][k0 + kk]
  __shared__ __align__(16) float b_tile[kBlockK][kPitch];  // b_tile[kk][j] = B[n0 + j][k0 + kk]

  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % 16, ty = tid / 16;
  const std::size_t m0 = static_cast<std::size_t>(blockIdx.y) * kBlockM;
  const std::size_t n0 = static_cast<std::size_t>(blockIdx.x) * kBlockN;
  const std::size_t ldk = static_cast<std::size_t>(k);
  // This thread's 16-byte piece of each tile: row r, k values 8q..8q+7 (a lane pair reads one
  // 32-byte sector of a row).
  const int r = tid / 2, q = tid % 2;
  const __nv_bfloat16* a_src = a + (m0 + r) * ldk + 8 * q;
  const __nv_bfloat16* b_src = b + (n0 + r) * ldk + 8 * q;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += kBlockK) {
    const uint4 va = *reinterpret_cast<const uint4*>(a_src + k0);
    const uint4 vb = *reinterpret_cast<const uint4*>(b_src + k0);
    float fa[8], fb[8];
    widen(va, fa);
    widen(vb, fb);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      a_tile[8 * q + e][r] = fa[e];
      b_tile[8 * q + e][r] = fb[e];
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

  // Rounded to bf16 once; each row's 8 values go out as two 8-byte stores.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const std::size_t row = m0 + (i < 4 ? 4 * ty + i : kHalf + 4 * ty + (i - 4));
    __nv_bfloat16* c_row = c + row * static_cast<std::size_t>(n) + n0;
    const uint2 lo = make_uint2(common::pack_bf16x2(acc[i][0], acc[i][1]),
                                common::pack_bf16x2(acc[i][2], acc[i][3]));
    const uint2 hi = make_uint2(common::pack_bf16x2(acc[i][4], acc[i][5]),
                                common::pack_bf16x2(acc[i][6], acc[i][7]));
    *reinterpret_cast<uint2*>(c_row + 4 * tx) = lo;
    *reinterpret_cast<uint2*>(c_row + kHalf + 4 * tx) = hi;
  }
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_simt(const GemmBf16Args& args, const cudaDeviceProp&) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "simt");
  GemmBf16Launch launch;
  launch.args = args;
  launch.grid =
      dim3(static_cast<unsigned>(args.n / kBlockN), static_cast<unsigned>(args.m / kBlockM));
  launch.block = dim3(kThreads);
  return launch;
}

cudaError_t launch_gemm_bf16_simt(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_simt<<<launch.grid, launch.block, 0, stream>>>(
      launch.args.a, launch.args.b, launch.args.c, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
