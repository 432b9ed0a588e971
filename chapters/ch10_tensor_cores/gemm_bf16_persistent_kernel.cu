// Rung 6: a persistent tile scheduler. Same roles, tile (128×256), k-step, ring and instructions
// as the warp-specialized rung; what changed is who walks the tiles. Instead of one block per
// output tile (2048 blocks at 8192³, each paying its prologue — barrier setup, an empty ring that
// fills before the first wgmma — and its epilogue with the tensor cores idle), the grid is one
// block per SM and each block loops over tiles blockIdx.x, + gridDim.x, ...:
//   - the ring and its mbarrier phases run on across tiles (the step counter never resets), so
//     the producer starts loading tile t+1 while the consumers still multiply, and then store,
//     tile t: the epilogue's stores overlap the next tile's loads;
//   - tiles are taken in a grouped order (gemm_bf16_tile_order.cuh: 8 block rows at a time,
//     down the rows, then across), so the ~132 tiles in flight share their A rows and B columns
//     in L2 rather than streaming all of B for every block row.
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and the variant declares
// Feature::wgmma.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../common/mbarrier.cuh"
#include "../common/setmaxnreg.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "../common/wgmma.cuh"
#include "gemm_bf16_kernels.cuh"
#include "gemm_bf16_shape.hpp"
#include "gemm_bf16_tile_order.cuh"
#include "gemm_bf16_wgmma_epilogue.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;
constexpr int kStages = 4;
[[maybe_unused]] constexpr int kGroupRows =
    8;  // tile order: 8 block rows (1024 rows of A) at a time
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
[[maybe_unused]] constexpr int kConsumerWarps = 4 * kConsumers;
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes =
    kStages * kSlotBytes + 2 * kStages * 8 + common::kSharedAlignmentSlack;

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_persistent(const __grid_constant__ CUtensorMap a_map,
                         const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* __restrict__ c,
                         int m, int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kStages * kSlotBytes);
  std::uint64_t* empty = full + kStages;
  const auto a_slot = [&](int s) { return base + s * kSlotBytes; };
  const auto b_slot = [&](int s) { return base + s * kSlotBytes + kATileBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  const int tiles_m = m / kBlockM, tiles_n = n / kBlockN;
  const int tiles = tiles_m * tiles_n;
  const int k_steps = k / kBlockK;

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&full[s], 1);
      common::mbarrier_init(&empty[s], kConsumerWarps);
    }
    common::mbarrier_init_fence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0) {
      int step = 0;  // runs on across tiles, like the ring's phases
      for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
           tile += static_cast<int>(gridDim.x)) {
        const TileCoordinate t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows);
        for (int kstep = 0; kstep < k_steps; ++kstep, ++step) {
          const int s = step % kStages;
          const auto round = static_cast<std::uint32_t>(step / kStages);
          common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);
          common::mbarrier_arrive_expect_tx(&full[s], kSlotBytes);
          common::tma_load_2d(a_slot(s), a_map, &full[s], kstep * kBlockK, t.row * kBlockM);
          common::tma_load_2d(b_slot(s), b_map, &full[s], kstep * kBlockK, t.col * kBlockN);
        }
      }
    }
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32;
    float d[128];
    int step = 0;
    for (int tile = static_cast<int>(blockIdx.x); tile < tiles;
         tile += static_cast<int>(gridDim.x)) {
      const TileCoordinate t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows);
      for (int kstep = 0; kstep < k_steps; ++kstep, ++step) {
        const int s = step % kStages;
        common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((step / kStages) % 2));
        const std::uint64_t desc_a =
            common::wgmma_descriptor_k_major_sw128(a_slot(s)) + 512 * consumer;
        const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(b_slot(s));
        common::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk)
          common::wgmma_m64n256k16_bf16(d, desc_a + 2 * kk, desc_b + 2 * kk, kstep > 0 || kk > 0);
        common::wgmma_commit_group();
        common::wgmma_wait_group<1>();
        if (kstep > 0 && lane == 0)
          common::mbarrier_arrive(&empty[(step - 1) % kStages]);
      }
      common::wgmma_wait_group<0>();
      if (lane == 0)  // the tile's last slot, before the epilogue: the producer refills it now
        common::mbarrier_arrive(&empty[(step - 1) % kStages]);
      common::wgmma_fence_accumulators(d);
      store_wgmma_tile_bf16<256>(d, c, static_cast<std::size_t>(n),
                                 static_cast<std::size_t>(t.row * kBlockM + 64 * consumer),
                                 static_cast<std::size_t>(t.col) * kBlockN);
    }
  }
#else
  (void)a_map, (void)b_map, (void)c, (void)m, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_persistent(const GemmBf16Args& args,
                                            const cudaDeviceProp& device) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "persistent");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bf16 persistent: needs " + std::to_string(kSharedBytes) +
                                " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bf16 persistent: cudaFuncSetAttribute: ") +
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
  const int tiles = (args.m / kBlockM) * (args.n / kBlockN);
  launch.grid = dim3(static_cast<unsigned>(std::min(tiles, device.multiProcessorCount)));
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

cudaError_t launch_gemm_bf16_persistent(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_persistent<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, launch.args.c, launch.args.m, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
