// Rung 2: mma.sync + ldmatrix + swizzled shared memory + a multi-stage cp.async pipeline — the
// Ampere-style tensor-core GEMM, which still runs on Hopper (and Blackwell). What changed from
// the WMMA rung, all of it about feeding the tensor cores rather than the math:
//   - PTX mma.sync m16n8k16 with fragments loaded by ldmatrix.x4 (one instruction brings a 16×16
//     A fragment or two 8×16 B fragments to the warp), instead of opaque WMMA loads;
//   - shared memory laid out for ldmatrix without padding: tile rows of 64 bf16 = 128 bytes, the
//     16-byte chunk c of row r stored at chunk c ^ (r % 8), so the 8 rows an ldmatrix phase reads
//     at one k lie in 8 different bank groups (conflict-free), and a warp's cp.async stores too;
//   - cp.async (global -> shared without registers) into a ring of 3 stages: the loads of k-steps
//     s+1 and s+2 are in flight while the tensor cores work on step s, with one barrier per step
//     instead of two;
//   - a larger tile: 128×256 per block of 8 warps, 64×64 per warp (32 mma per 8 ldmatrix per
//     16 k), 128 fp32 accumulators per thread.
// The shape of the pipeline (k-step s waits on cp.async group s, then refills the slot that step
// s-1 read) is the one the TMA rungs keep; they replace the copies and then the math.
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor. mma.sync is issued per warp
// and reads its operands through registers, so on Hopper it cannot reach wgmma's rate (ANCHORS.md:
// "WMMA or mma.sync kernels land far lower on Hopper").
#include <cstddef>
#include <cstdint>

#include "../common/bf16_pack.cuh"
#include "../common/mma_sync.cuh"
#include "gemm_bf16_kernels.cuh"
#include "gemm_bf16_shape.hpp"

namespace aisp::ch10 {
namespace {

using common::cp_async_16;

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;  // one 128-byte row per tile row
constexpr int kStages = 3;
constexpr int kWarpsM = 2, kWarpsN = 4;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;  // 256
constexpr int kWarpM = kBlockM / kWarpsM;         // 64: 4 m16 tiles
constexpr int kWarpN = kBlockN / kWarpsN;         // 64: 8 n8 tiles
constexpr int kTilesM = kWarpM / 16, kTilesN = kWarpN / 8;
constexpr int kATileElems = kBlockM * kBlockK;
constexpr int kBTileElems = kBlockN * kBlockK;
constexpr int kStageElems = kATileElems + kBTileElems;
constexpr unsigned kSharedBytes = kStages * kStageElems * sizeof(__nv_bfloat16);  // 144 KiB
constexpr int kALoads = kBlockM * 8 / kThreads;  // 16-byte chunks per thread per stage: 4
constexpr int kBLoads = kBlockN * 8 / kThreads;  // 8
static_assert(kALoads * kThreads == kBlockM * 8 && kBLoads * kThreads == kBlockN * 8,
              "tiles split evenly into 16-byte chunks");

// Element offset of (row, 16-byte chunk) in a swizzled tile of 128-byte rows.
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * kBlockK + ((chunk ^ (row % 8)) * 8);
}

__device__ __forceinline__ void load_stage(__nv_bfloat16* stage, const __nv_bfloat16* a,
                                           const __nv_bfloat16* b, std::size_t m0, std::size_t n0,
                                           std::size_t ldk, int k0) {
  const int tid = static_cast<int>(threadIdx.x);
  __nv_bfloat16* a_tile = stage;
  __nv_bfloat16* b_tile = stage + kATileElems;
#pragma unroll
  for (int p = 0; p < kALoads; ++p) {
    const int chunk = tid + p * kThreads;
    const int row = chunk / 8, col = chunk % 8;
    cp_async_16(a_tile + swizzled(row, col), a + (m0 + row) * ldk + k0 + 8 * col);
  }
#pragma unroll
  for (int p = 0; p < kBLoads; ++p) {
    const int chunk = tid + p * kThreads;
    const int row = chunk / 8, col = chunk % 8;
    cp_async_16(b_tile + swizzled(row, col), b + (n0 + row) * ldk + k0 + 8 * col);
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_mma_sync(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                       __nv_bfloat16* __restrict__ c, int n, int k) {
  extern __shared__ __align__(128) __nv_bfloat16 stages[];

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const std::size_t m0 = static_cast<std::size_t>(blockIdx.y) * kBlockM;
  const std::size_t n0 = static_cast<std::size_t>(blockIdx.x) * kBlockN;
  const std::size_t ldk = static_cast<std::size_t>(k);
  const int k_steps = k / kBlockK;

  float acc[kTilesM][kTilesN][4];
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < kTilesN; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][j][e] = 0.0f;

        // Prologue: the first kStages - 1 k-steps in flight, one commit group each.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_steps)
      load_stage(stages + s * kStageElems, a, b, m0, n0, ldk, s * kBlockK);
    common::cp_async_commit();
  }

  // ldmatrix row addresses: lane l reads row l % 16 of a 16-row A slice at chunk +l / 16, and
  // row (l % 8) + 8·(l / 16) of a 16-row B slice at chunk +(l / 8) % 2 (mma_sync.cuh).
  const int a_row = warp_m * kWarpM + lane % 16, a_chunk = lane / 16;
  const int b_row = warp_n * kWarpN + lane % 8 + 8 * (lane / 16), b_chunk = (lane / 8) % 2;

  for (int step = 0; step < k_steps; ++step) {
    common::cp_async_wait<kStages - 2>();  // this thread's copies of k-step `step` have landed
    __syncthreads();                       // everyone's have, and step - 1's slot is free
    {
      const int next = step + kStages - 1;
      if (next < k_steps)
        load_stage(stages + (next % kStages) * kStageElems, a, b, m0, n0, ldk, next * kBlockK);
      common::cp_async_commit();  // an empty group at the tail keeps the count uniform
    }

    const __nv_bfloat16* a_tile = stages + (step % kStages) * kStageElems;
    const __nv_bfloat16* b_tile = a_tile + kATileElems;
#pragma unroll
    for (int kk = 0; kk < kBlockK / 16; ++kk) {
      std::uint32_t fa[kTilesM][4];
      std::uint32_t fb[kTilesN / 2][4];
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
        common::ldmatrix_x4(fa[i], a_tile + swizzled(a_row + 16 * i, 2 * kk + a_chunk));
#pragma unroll
      for (int j = 0; j < kTilesN / 2; ++j)
        common::ldmatrix_x4(fb[j], b_tile + swizzled(b_row + 16 * j, 2 * kk + b_chunk));
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int j = 0; j < kTilesN; ++j)
          common::mma_m16n8k16_bf16(acc[i][j], fa[i], fb[j / 2][2 * (j % 2)],
                                    fb[j / 2][2 * (j % 2) + 1]);
    }
  }
  common::cp_async_wait<0>();

  // Accumulator (i, j) holds rows g, g + 8 and columns 2q, 2q + 1 of a 16×8 tile.
  const int g = lane / 4, q = lane % 4;
#pragma unroll
  for (int i = 0; i < kTilesM; ++i) {
    const std::size_t row = m0 + warp_m * kWarpM + 16 * i + g;
    __nv_bfloat16* top = c + row * static_cast<std::size_t>(n) + n0 + warp_n * kWarpN + 2 * q;
    __nv_bfloat16* bottom = top + 8 * static_cast<std::size_t>(n);
#pragma unroll
    for (int j = 0; j < kTilesN; ++j) {
      *reinterpret_cast<std::uint32_t*>(top + 8 * j) =
          common::pack_bf16x2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<std::uint32_t*>(bottom + 8 * j) =
          common::pack_bf16x2(acc[i][j][2], acc[i][j][3]);
    }
  }
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_mma_sync(const GemmBf16Args& args, const cudaDeviceProp& device) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "mma_sync");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bf16 mma_sync: needs " + std::to_string(kSharedBytes) +
                                " bytes of shared memory per block; this GPU allows " +
                                std::to_string(device.sharedMemPerBlockOptin));
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_mma_sync, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bf16 mma_sync: cudaFuncSetAttribute: ") +
                             cudaGetErrorString(status));
  GemmBf16Launch launch;
  launch.args = args;
  launch.grid =
      dim3(static_cast<unsigned>(args.n / kBlockN), static_cast<unsigned>(args.m / kBlockM));
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

cudaError_t launch_gemm_bf16_mma_sync(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_mma_sync<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.args.a, launch.args.b, launch.args.c, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
