// Rung 7: 2×1 thread-block clusters with TMA multicast. Same persistent, warp-specialized kernel
// (tile 128×256 per block, k-step 64, 4-slot ring, grouped tile order); what changed is that two
// blocks on neighbouring SMs form a cluster and share their B tile:
//   - the cluster owns a 256×256 piece of C: block rank r computes rows 128·r.. of it, both the
//     same 256 columns, so both need the same 256×64 B box every k-step;
//   - each block's producer loads its own A box (16 KiB) and HALF of the B box (128 rows,
//     16 KiB) with a multicast copy that lands in both blocks' shared memory at the same offset
//     and counts down both blocks' full[s]: B is read from L2 once per cluster instead of twice,
//     so L2 -> SM traffic per k-step drops from 96 to 64 KiB per pair of blocks (a third less);
//   - a slot may only be refilled when BOTH blocks' consumers are done with it (the peer's
//     multicast writes into it too): each consumer warp arrives on empty[s] in both blocks
//     (mbarrier.arrive on the peer's barrier through mapa), so empty[s] expects 16 arrivals;
//   - the blocks sync as a cluster after initializing their barriers (no copy or remote arrival
//     may reach a peer's barrier before it exists) and before exiting (none may reach a block
//     that has gone).
// The grid is as many clusters as fit at once (cudaOccupancyMaxActiveClusters), each walking
// cluster tiles c, + clusters, ... in the grouped order; both blocks of a cluster walk the same
// sequence, so their rings stay in step.
// Measured (H200, README): L2 throughput 73% -> 61% of peak at 8192³, tensor pipe as busy as the
// persistent rung's (93%): the persistent kernel was not L2-bound, so the gain is small (1.04× at
// 8192³ under the power cap, none at 4096³).
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and the variant declares
// Feature::wgmma, tma and thread_block_clusters.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../common/cluster.cuh"
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

constexpr int kClusterSize = 2;  // blocks per cluster, stacked along M
constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;
constexpr int kStages = 4;
[[maybe_unused]] constexpr int kGroupRows =
    4;  // tile order: 4 cluster rows (1024 rows of A) at a time
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
[[maybe_unused]] constexpr int kConsumerWarps = 4 * kConsumers;
constexpr int kBHalfRows = kBlockN / kClusterSize;       // B rows each block multicasts
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;  // 16 KiB
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;  // 32 KiB, half from each block
[[maybe_unused]] constexpr unsigned kBHalfBytes = kBTileBytes / kClusterSize;  // 16 KiB
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes =
    kStages * kSlotBytes + 2 * kStages * 8 + common::kSharedAlignmentSlack;

__global__ void __cluster_dims__(kClusterSize, 1, 1) __launch_bounds__(kThreads, 1)
    gemm_bf16_cluster_multicast(const __grid_constant__ CUtensorMap a_map,
                                const __grid_constant__ CUtensorMap b_map,
                                __nv_bfloat16* __restrict__ c, int m, int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kStages * kSlotBytes);
  std::uint64_t* empty = full + kStages;
  const auto a_slot = [&](int s) { return base + s * kSlotBytes; };
  const auto b_slot = [&](int s) { return base + s * kSlotBytes + kATileBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  const int rank = static_cast<int>(common::cluster_cta_rank());
  const int cluster = static_cast<int>(common::cluster_index_x());
  const int clusters = static_cast<int>(common::cluster_count_x());
  const int tiles_m = m / (kBlockM * kClusterSize), tiles_n = n / kBlockN;  // cluster tiles
  const int tiles = tiles_m * tiles_n;
  const int k_steps = k / kBlockK;

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&full[s], 1);
      common::mbarrier_init(&empty[s], kConsumerWarps * kClusterSize);
    }
    common::mbarrier_init_fence();
  }
  common::cluster_sync();  // every block's barriers exist before anyone copies or arrives

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0) {
      const auto both = static_cast<std::uint16_t>((1u << kClusterSize) - 1);
      int step = 0;
      for (int tile = cluster; tile < tiles; tile += clusters) {
        const TileCoordinate t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows);
        const int row0 = (t.row * kClusterSize + rank) * kBlockM;
        const int col0 = t.col * kBlockN;
        for (int kstep = 0; kstep < k_steps; ++kstep, ++step) {
          const int s = step % kStages;
          const auto round = static_cast<std::uint32_t>(step / kStages);
          common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);  // both blocks are done
          // A (16 KiB, this block's) + B (2 × 16 KiB, one half from each block).
          common::mbarrier_arrive_expect_tx(&full[s], kSlotBytes);
          common::tma_load_2d(a_slot(s), a_map, &full[s], kstep * kBlockK, row0);
          common::tma_load_2d_multicast(b_slot(s) + rank * kBHalfBytes, b_map, &full[s],
                                        kstep * kBlockK, col0 + rank * kBHalfRows, both);
        }
      }
    }
    __syncwarp();
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32;
    const auto release = [&](int s) {  // one arrival per warp, in both blocks
      if (lane == 0)
        for (int peer = 0; peer < kClusterSize; ++peer)
          common::mbarrier_arrive_cluster(&empty[s], static_cast<std::uint32_t>(peer));
    };
    float d[128];
    int step = 0;
    for (int tile = cluster; tile < tiles; tile += clusters) {
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
        if (kstep > 0)
          release((step - 1) % kStages);
      }
      common::wgmma_wait_group<0>();
      release((step - 1) % kStages);
      common::wgmma_fence_accumulators(d);
      const int row0 = (t.row * kClusterSize + rank) * kBlockM + 64 * consumer;
      store_wgmma_tile_bf16<256>(d, c, static_cast<std::size_t>(n), static_cast<std::size_t>(row0),
                                 static_cast<std::size_t>(t.col) * kBlockN);
    }
  }
  common::cluster_sync();  // no block exits while its peer may still signal or copy into it
#else
  (void)a_map, (void)b_map, (void)c, (void)m, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_cluster_multicast(const GemmBf16Args& args,
                                                   const cudaDeviceProp& device) {
  require_whole_tiles(args, kBlockM * kClusterSize, kBlockN, kBlockK, "cluster_multicast");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bf16 cluster_multicast: needs " +
                                std::to_string(kSharedBytes) + " bytes of shared memory per block");
  const auto fail = [](const char* call, cudaError_t status) {
    throw std::runtime_error(std::string("gemm_bf16 cluster_multicast: ") + call + ": " +
                             cudaGetErrorString(status));
  };
  cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_cluster_multicast, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    fail("cudaFuncSetAttribute", status);

  // As many clusters as can be resident at once (GPCs need not split evenly into pairs of SMs).
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(device.multiProcessorCount));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSharedBytes;
  cudaLaunchAttribute cluster_dims{};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim.x = kClusterSize;
  cluster_dims.val.clusterDim.y = 1;
  cluster_dims.val.clusterDim.z = 1;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  int resident_clusters = 0;
  status = cudaOccupancyMaxActiveClusters(&resident_clusters, gemm_bf16_cluster_multicast, &config);
  if (status != cudaSuccess)
    fail("cudaOccupancyMaxActiveClusters", status);
  if (resident_clusters < 1)
    throw std::runtime_error("gemm_bf16 cluster_multicast: no 2-block cluster of this kernel fits "
                             "on the GPU (cudaOccupancyMaxActiveClusters returned 0)");

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
                                                 .box_rows = kBHalfRows,
                                                 .box_cols = kBlockK});
  const int cluster_tiles = (args.m / (kBlockM * kClusterSize)) * (args.n / kBlockN);
  launch.grid =
      dim3(static_cast<unsigned>(kClusterSize * std::min(cluster_tiles, resident_clusters)));
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

cudaError_t launch_gemm_bf16_cluster_multicast(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_cluster_multicast<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, launch.args.c, launch.args.m, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
