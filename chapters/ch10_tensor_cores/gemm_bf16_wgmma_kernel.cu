// Rung 3: TMA tiles + wgmma, one consumer warpgroup — the Hopper instructions, in the simplest
// loop that uses them. What changed from the mma.sync rung:
//   - the math is wgmma (warpgroup MMA, sm_90a): the block is one warpgroup of 128 threads, and
//     one instruction, m64n128k16, multiplies a 64×16 slice of A by a 16×128 slice of B
//     straight from shared memory (no ldmatrix, no operand registers) into 64 fp32 registers
//     per thread; two of them (rows 0-63 and 64-127) cover the 128×128 block tile per 16 k;
//   - the tiles are loaded by TMA: one thread issues two cp.async.bulk.tensor copies per k-step
//     (A's 128×64 box, B's 128×64 box), the copy engine writes them with the 128-byte swizzle
//     that wgmma's descriptors expect and counts the bytes down on an mbarrier; the other 127
//     threads compute no addresses at all.
// What it does not do yet: overlap. There is one shared-memory stage: each k-step waits for its
// copy, runs its wgmma to completion, and only then (after a barrier) lets the next copy start.
// The latency hiding left comes from the other blocks on the SM (three fit: 33 KiB of shared
// memory and ~170 registers per thread each). The next rung keeps several copies in flight.
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor.
// sm_90a only: elsewhere the kernel body is a trap and the variant declares Feature::wgmma.
#include <cstddef>
#include <cstdint>

#include "../common/mbarrier.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "../common/wgmma.cuh"
#include "gemm_bf16_kernels.cuh"
#include "gemm_bf16_shape.hpp"
#include "gemm_bf16_wgmma_epilogue.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;  // one 128-byte swizzle row
constexpr int kThreads = 128;
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;  // 16 KiB
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;  // 16 KiB
constexpr unsigned kSharedBytes =
    kATileBytes + kBTileBytes + 64 + common::kSharedAlignmentSlack;  // + the mbarrier

__global__ void __launch_bounds__(kThreads, 3)
    gemm_bf16_wgmma(const __grid_constant__ CUtensorMap a_map,
                    const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* __restrict__ c, int n,
                    int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* a_tile = reinterpret_cast<__nv_bfloat16*>(base);
  auto* b_tile = reinterpret_cast<__nv_bfloat16*>(base + kATileBytes);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kATileBytes + kBTileBytes);

  const int tid = static_cast<int>(threadIdx.x);
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int k_steps = k / kBlockK;

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    common::mbarrier_init(full, 1);  // one arrival per phase: the issuing thread's expect_tx
    common::mbarrier_init_fence();
  }
  __syncthreads();

  const std::uint64_t desc_a = common::wgmma_descriptor_k_major_sw128(a_tile);
  const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(b_tile);
  // Rows 0-63 and 64-127 of the block tile. Not zeroed: the first k-slice overwrites them
  // (scale-d 0), so no ordinary instruction writes an accumulator the wgmma pipeline owns.
  float d[2][64];

  for (int step = 0; step < k_steps; ++step) {
    if (tid == 0) {
      common::mbarrier_arrive_expect_tx(full, kATileBytes + kBTileBytes);
      common::tma_load_2d(a_tile, a_map, full, step * kBlockK, m0);
      common::tma_load_2d(b_tile, b_map, full, step * kBlockK, n0);
    }
    common::mbarrier_wait_parity(full, static_cast<std::uint32_t>(step % 2));

    common::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBlockK / 16; ++kk) {
      // k slice kk: 32 bytes further along each 128-byte row (2 in descriptor units); rows
      // 64..127 of A start 64 rows · 128 bytes = 8 KiB further (512 units).
      const bool accumulate = step > 0 || kk > 0;
      common::wgmma_m64n128k16_bf16(d[0], desc_a + 2 * kk, desc_b + 2 * kk, accumulate);
      common::wgmma_m64n128k16_bf16(d[1], desc_a + 512 + 2 * kk, desc_b + 2 * kk, accumulate);
    }
    common::wgmma_commit_group();
    common::wgmma_wait_group<0>();
    common::wgmma_fence_accumulators(d[0]);
    common::wgmma_fence_accumulators(d[1]);
    __syncthreads();  // every warp's wgmma has read the tiles before thread 0 refills them
  }

  const std::size_t ldc = static_cast<std::size_t>(n);
  store_wgmma_tile_bf16<128>(d[0], c, ldc, static_cast<std::size_t>(m0), n0);
  store_wgmma_tile_bf16<128>(d[1], c, ldc, static_cast<std::size_t>(m0) + 64, n0);
#else
  (void)a_map, (void)b_map, (void)c, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_wgmma(const GemmBf16Args& args, const cudaDeviceProp& device) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "wgmma");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bf16 wgmma: needs " + std::to_string(kSharedBytes) +
                                " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bf16 wgmma: cudaFuncSetAttribute: ") +
                             cudaGetErrorString(status));
  GemmBf16Launch launch;
  launch.args = args;
  launch.a_map = common::encode_tiled_matrix_2d({.base = args.a,
                                                 .rows = static_cast<std::uint64_t>(args.m),
                                                 .cols = static_cast<std::uint64_t>(args.k),
                                                 .box_rows = kBlockM,
                                                 .box_cols = kBlockK});
  launch.b_map = common::encode_tiled_matrix_2d({.base = args.b,
                                                 .rows = static_cast<std::uint64_t>(args.n),
                                                 .cols = static_cast<std::uint64_t>(args.k),
                                                 .box_rows = kBlockN,
                                                 .box_cols = kBlockK});
  launch.grid =
      dim3(static_cast<unsigned>(args.n / kBlockN), static_cast<unsigned>(args.m / kBlockM));
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

cudaError_t launch_gemm_bf16_wgmma(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_wgmma<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, launch.args.c, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
