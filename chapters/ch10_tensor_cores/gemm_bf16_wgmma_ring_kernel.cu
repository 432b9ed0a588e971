// Rung 4: a multi-stage TMA ring with mbarriers. Same warpgroup, block tile (128×128), k-step
// (64) and instructions as the wgmma rung; what changed is that loads and math now overlap inside
// the block. Shared memory holds kStages slots; each slot has two mbarriers:
//   full[s]  completes when the copy engine has landed the slot's A and B boxes (one arrival, the
//            issuing thread's expect_tx, plus the bytes);
//   empty[s] completes when all four warps have finished the wgmma that read the slot (4
//            arrivals, one per warp, after its wgmma.wait_group).
// Thread 0 starts kStages copies up front; at k-step s the warpgroup waits on full[s % kStages]
// (parity (s / kStages) & 1), issues the step's wgmma, commits them and waits only for the
// previous step's group (wait_group 1), so the tensor cores always have the next group queued;
// that previous slot is then released, and thread 0 refills it with k-step s - 1 + kStages as
// soon as empty says every warp is done with it. No block-wide barrier remains in the loop: the
// mbarrier phases order everything.
// Two slots per block and three blocks per SM, as in the wgmma rung (3 × 65 KiB of shared
// memory): six tiles in flight per SM, and one block's epilogue overlaps the others' main loops.
// Deeper rings with fewer blocks were slower on the H200 (probe, 8192³ / 4096³, TFLOP/s): 2 slots
// × 3 blocks 648 / 592, 3 × 2 596 / 626, 4 × 1 595 / 598. Fewer resident blocks mean fewer
// block rows of C in flight, so B is re-read from DRAM more often: 3 × 2 kept DRAM 62% busy
// (ncu) against 20% for the wgmma rung's three blocks.
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
constexpr int kBlockK = 64;
constexpr int kStages = 2;
constexpr int kThreads = 128;
[[maybe_unused]] constexpr int kWarps = kThreads / 32;   // used in device code only
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;  // 16 KiB
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;  // 16 KiB
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes =
    kStages * kSlotBytes + 2 * kStages * 8 + common::kSharedAlignmentSlack;

__global__ void __launch_bounds__(kThreads, 3)
    gemm_bf16_wgmma_ring(const __grid_constant__ CUtensorMap a_map,
                         const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* __restrict__ c,
                         int n, int k) {
#if AISP_WGMMA_AVAILABLE
  extern __shared__ std::uint8_t shared_window[];
  std::uint8_t* base = common::align_shared_1024(shared_window);
  auto* full = reinterpret_cast<std::uint64_t*>(base + kStages * kSlotBytes);
  std::uint64_t* empty = full + kStages;
  const auto a_slot = [&](int s) { return base + s * kSlotBytes; };
  const auto b_slot = [&](int s) { return base + s * kSlotBytes + kATileBytes; };

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32;
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int k_steps = k / kBlockK;

  const auto issue = [&](int step) {  // thread 0 only
    const int s = step % kStages;
    common::mbarrier_arrive_expect_tx(&full[s], kSlotBytes);
    common::tma_load_2d(a_slot(s), a_map, &full[s], step * kBlockK, m0);
    common::tma_load_2d(b_slot(s), b_map, &full[s], step * kBlockK, n0);
  };

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&full[s], 1);
      common::mbarrier_init(&empty[s], kWarps);
    }
    common::mbarrier_init_fence();
  }
  __syncthreads();
  if (tid == 0)
    for (int step = 0; step < kStages && step < k_steps; ++step)
      issue(step);

  // No zeroing: the first k-slice overwrites the accumulators (scale-d 0). Ordinary instructions
  // writing accumulator registers while wgmma groups are in flight would make the compiler
  // serialize the wgmma (ptxas C7515).
  float d[2][64];

  for (int step = 0; step < k_steps; ++step) {
    const int s = step % kStages;
    common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((step / kStages) % 2));
    const std::uint64_t desc_a = common::wgmma_descriptor_k_major_sw128(a_slot(s));
    const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(b_slot(s));
    common::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBlockK / 16; ++kk) {
      const bool accumulate = step > 0 || kk > 0;
      common::wgmma_m64n128k16_bf16(d[0], desc_a + 2 * kk, desc_b + 2 * kk, accumulate);
      common::wgmma_m64n128k16_bf16(d[1], desc_a + 512 + 2 * kk, desc_b + 2 * kk, accumulate);
    }
    common::wgmma_commit_group();
    common::wgmma_wait_group<1>();  // step - 1's group is done: its slot may be refilled
    if (step > 0) {
      const int prev = step - 1, ps = prev % kStages;
      if (lane == 0)
        common::mbarrier_arrive(&empty[ps]);
      if (tid == 0 && prev + kStages < k_steps) {
        common::mbarrier_wait_parity(&empty[ps], static_cast<std::uint32_t>((prev / kStages) % 2));
        issue(prev + kStages);
      }
      __syncwarp();  // warp 0 reconverges before the next step's .aligned wgmma instructions
    }
  }
  common::wgmma_wait_group<0>();
  common::wgmma_fence_accumulators(d[0]);
  common::wgmma_fence_accumulators(d[1]);

  const std::size_t ldc = static_cast<std::size_t>(n);
  store_wgmma_tile_bf16<128>(d[0], c, ldc, static_cast<std::size_t>(m0), n0);
  store_wgmma_tile_bf16<128>(d[1], c, ldc, static_cast<std::size_t>(m0) + 64, n0);
#else
  (void)a_map, (void)b_map, (void)c, (void)n, (void)k;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_wgmma_ring(const GemmBf16Args& args,
                                            const cudaDeviceProp& device) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, "wgmma_ring");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bf16 wgmma_ring: needs " + std::to_string(kSharedBytes) +
                                " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_wgmma_ring, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bf16 wgmma_ring: cudaFuncSetAttribute: ") +
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

cudaError_t launch_gemm_bf16_wgmma_ring(const GemmBf16Launch& launch, cudaStream_t stream) {
  gemm_bf16_wgmma_ring<<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, launch.args.c, launch.args.n, launch.args.k);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
