// Rung 5: warp specialization — a producer warpgroup and two consumer warpgroups, with
// setmaxnreg. What changed from the wgmma ring: the block is 3 warpgroups (384 threads) with
// fixed roles instead of one warpgroup doing everything:
//   - warpgroup 0 produces: one of its threads waits for a free slot (empty[s]), arms full[s] with
//     the slot's bytes and starts its two TMA copies; it never touches the math, so a refill is
//     never delayed behind a wgmma wait, and it gives its registers back (setmaxnreg.dec to 40);
//   - warpgroups 1 and 2 consume: each takes 232 registers (setmaxnreg.inc), waits on full[s],
//     multiplies its own 64-row half of the A tile by the whole B tile with m64n256k16 (128 fp32
//     accumulators per thread), and releases the slot once its wgmma group has finished
//     (one arrival per warp: empty[s] expects 8).
// The block tile grows to 128×256 (each k-step of 64 reads 48 KiB for 2.1 M multiply-adds,
// against 32 KiB for 1 M at 128×128: a third fewer operand bytes per FLOP), with a ring of 4
// slots (192 KiB), one block per SM. Each consumer keeps one wgmma group in flight (wait_group 1)
// and releases a slot one k-step after using it.
// Bytes: 2·(M·K + N·K + M·N); FLOPs: 2·M·N·K. Ceiling: BF16 tensor.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and the variant declares
// Feature::wgmma.
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
#include "gemm_bf16_wgmma_epilogue.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;
constexpr int kStages = 4;
constexpr int kConsumers = 2;                     // consumer warpgroups, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);  // 384
[[maybe_unused]] constexpr int kConsumerWarps = 4 * kConsumers;  // empty[s]'s arrivals
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;          // 16 KiB
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;          // 32 KiB
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes =
    kStages * kSlotBytes + 2 * kStages * 8 + common::kSharedAlignmentSlack;

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_warp_specialized(const __grid_constant__ CUtensorMap a_map,
                               const __grid_constant__ CUtensorMap b_map,
                               __nv_bfloat16* __restrict__ c, int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kStages * kSlotBytes);
  std::uint64_t* empty = full + kStages;
  const auto a_slot = [&](int s) { return base + s * kSlotBytes; };
  const auto b_slot = [&](int s) { return base + s * kSlotBytes + kATileBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int n0 = static_cast<int>(blockIdx.x) * kBlockN;
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
      for (int step = 0; step < k_steps; ++step) {
        const int s = step % kStages;
        const auto round = static_cast<std::uint32_t>(step / kStages);
        common::mbarrier_wait_parity(&empty[s], (round % 2) ^ 1);  // round 0: free at once
        common::mbarrier_arrive_expect_tx(&full[s], kSlotBytes);
        common::tma_load_2d(a_slot(s), a_map, &full[s], step * kBlockK, m0);
        common::tma_load_2d(b_slot(s), b_map, &full[s], step * kBlockK, n0);
      }
    }
  } else {
    common::setmaxnreg_increase<232>();
    const int consumer = warpgroup - 1;
    const int lane = tid % 32;
    float d[128];  // written first by the first k-slice (scale-d 0)
    for (int step = 0; step < k_steps; ++step) {
      const int s = step % kStages;
      common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((step / kStages) % 2));
      // This consumer's 64 rows of A start 64 · 128 bytes into the slot (512 descriptor units).
      const std::uint64_t desc_a =
          common::wgmma_descriptor_k_major_sw128(a_slot(s)) + 512 * consumer;
      const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(b_slot(s));
      common::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockK / 16; ++kk)
        common::wgmma_m64n256k16_bf16(d, desc_a + 2 * kk, desc_b + 2 * kk, step > 0 || kk > 0);
      common::wgmma_commit_group();
      common::wgmma_wait_group<1>();  // step - 1's group is done: release its slot
      if (step > 0 && lane == 0)
        common::mbarrier_arrive(&empty[(step - 1) % kStages]);
    }
    common::wgmma_wait_group<0>();
    common::wgmma_fence_accumulators(d);
    store_wgmma_tile_bf16<256>(d, c, static_cast<std::size_t>(n),
                               static_cast<std::size_t>(m0 + 64 * consumer), n0);
  }
#else
  (void)a_map, (void)b_map, (void)c, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_warp_specialized(const GemmBf16Args& args,
                                                  const cudaDeviceProp& device) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "warp_specialized");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bf16 warp_specialized: needs " +
                                std::to_string(kSharedBytes) + " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_warp_specialized, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bf16 warp_specialized: cudaFuncSetAttribute: ") +
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

cudaError_t launch_gemm_bf16_warp_specialized(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_warp_specialized<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, launch.args.c, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
