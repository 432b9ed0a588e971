// Ping-pong: two consumer warpgroups alternate MMA and epilogue. Same producer, TMA ring,
// mbarrier protocol, setmaxnreg split and persistent grouped tile walk as the persistent rung
// (gemm_bf16_persistent_kernel.cu); what changed is who owns a tile. In the persistent rung both
// consumer warpgroups split one 128×256 tile (rows 0–63 and 64–127), finish its k loop together
// and then store it together: while they store, no wgmma runs on the SM (README: the gap to
// cuBLASLt). Here each consumer warpgroup owns a whole 128×128 tile (two m64n128k16 per k16
// step, the same 128 fp32 accumulators per thread) and the block's tiles alternate between them:
// warpgroup 1 takes the block's tiles 0, 2, 4, ..., warpgroup 2 tiles 1, 3, 5, ...
//   - the producer fills one ring in the block's tile order (all k-steps of tile 0, then tile 1,
//     ...); a turn token (two named barriers) orders the consumers' main loops: warpgroup 2 starts
//     waiting on the ring for tile 1 only after warpgroup 1 has issued tile 0's last wgmma, and
//     so on. So warpgroup 2's MMAs queue behind warpgroup 1's, and warpgroup 1's epilogue (bias,
//     activation, rounding and the 32 KiB store of its tile) runs while warpgroup 2 multiplies;
//   - the token is not only a schedule but what keeps the ring's parity waits valid (see
//     "Invariant" below). The first version relied on the in-order ring alone and had each
//     consumer wait on the ring at its tile's position right away: on an H200 it read slots
//     holding the other tile's k-steps and crashed ("unspecified launch failure" at 4096³) or
//     hung (8192³), run 20261123-234213-b5c8;
//   - a slot is consumed by one warpgroup only, so empty[s] expects 4 arrivals (its warps);
//   - the price: a 128×128 tile reads 32 KiB of operands per 64-deep k-step for 1 M
//     multiply-adds, against 48 KiB for 2 M in the 128×256 tile (a third more L2 -> SM traffic
//     per FLOP), and m64n128 reads more shared memory per FLOP than m64n256 (6 against 5 KiB per
//     131 k multiply-adds). The ring is 6 slots of 32 KiB (192 KiB).
// The kernel is a template over its epilogue (chapters/common/gemm_epilogue_wgmma.cuh), built
// twice below: plain (C = A·Bᵀ, a candidate rung of the ladder) and bias + GELU (pair
// gemm_bias_gelu). Bytes: 2·(M·K + N·K + M·N) (+ 2·N of bias); FLOPs: 2·M·N·K. Ceiling: BF16
// tensor.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and the variants declare
// Feature::wgmma.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/gemm_epilogue_wgmma.cuh"
#include "../common/mbarrier.cuh"
#include "../common/setmaxnreg.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "../common/wgmma.cuh"
#include "gemm_bf16_shape.hpp"
#include "gemm_bf16_tile_order.cuh"
#include "gemm_epilogue_kernels.cuh"

namespace aisp::ch10 {
namespace {

constexpr int kBlockM = 128;  // per consumer warpgroup: a whole tile
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;
constexpr int kStages = 6;
[[maybe_unused]] constexpr int kGroupRows =
    16;  // tile order: 16 block rows (2048 rows of A) at a time; ~264 tiles are in flight
constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
[[maybe_unused]] constexpr int kWarpsPerConsumer = 4;
constexpr unsigned kATileBytes = kBlockM * kBlockK * 2;  // 16 KiB
constexpr unsigned kBTileBytes = kBlockN * kBlockK * 2;  // 16 KiB
constexpr unsigned kSlotBytes = kATileBytes + kBTileBytes;
constexpr unsigned kSharedBytes =
    kStages * kSlotBytes + 2 * kStages * 8 + common::kSharedAlignmentSlack;

// Invariant of a parity-waited ring: an mbarrier remembers only the parity of its current phase,
// so a wait for phase P of full[s] (parity P % 2) is right only while the barrier has completed
// exactly P or P + 1 phases. With P - 1 completed, the wait passes at once on the phase before
// (the slot holds older data); with fewer, it blocks or passes on an even older phase. A wait at
// global k-step st (phase st / kStages of slot st % kStages) is therefore right only once the
// k-step st - kStages has been waited on by whoever consumes it (then the producer cannot have
// refilled the slot twice either: it needs this wait's release first). In the persistent rung
// both consumers walk every k-step, so each wait follows their own previous wait on that slot.
// Here a consumer skips the other's tile, during which each slot goes through k_steps / kStages
// phases (10 at K = 4096, 21 at K = 8192), and the first version waited at its own tile's steps
// right away. By the arithmetic: at K = 4096 consumer 2's first wait (k-step 64: slot 4, phase
// 10, parity 0) is satisfied by an even phase of tile 0 (its k-step 4, 16, ...); at K = 8192
// (k-step 128: slot 2, phase 21, parity 1) it passes at once while slot 2 has completed no
// phase, before any copy landed, or on an odd phase of tile 0. Either way it multiplies the wrong
// operands and then releases slots it does not own (extra arrivals on empty[s]), which shifts
// every later phase of the ring.
// The turn restores the invariant: a consumer waits for its turn before its tile's first k-step,
// and the other passes it only after its last full wait of the tile before, so every earlier
// k-step has been waited on.
//
// Named barrier 1 + c is consumer c's turn: it completes when c's 128 threads wait on it
// (bar.sync) and the other consumer's 128 threads have arrived (bar.arrive does not wait).
// Consumer c waits before each of its tiles but the block's first; the owner of the block's tile i
// passes the turn after issuing it only if tile i + 1 exists, so each bar.sync meets exactly one
// bar.arrive and a barrier's next arrival can only follow its previous completion. Ids are
// immediates (a register id makes ptxas reserve all 16 named barriers); id 0 is __syncthreads.
constexpr int kTurnThreads = 128 * kConsumers;
[[maybe_unused]] __device__ __forceinline__ void wait_turn(int consumer) {
  if (consumer == 0)
    asm volatile("bar.sync 1, %0;" ::"n"(kTurnThreads) : "memory");
  else
    asm volatile("bar.sync 2, %0;" ::"n"(kTurnThreads) : "memory");
}
[[maybe_unused]] __device__ __forceinline__ void pass_turn(int to_consumer) {
  if (to_consumer == 0)
    asm volatile("bar.arrive 1, %0;" ::"n"(kTurnThreads) : "memory");
  else
    asm volatile("bar.arrive 2, %0;" ::"n"(kTurnThreads) : "memory");
}

template <class Epilogue>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_pingpong(const __grid_constant__ CUtensorMap a_map,
                       const __grid_constant__ CUtensorMap b_map, __nv_bfloat16* __restrict__ c,
                       int m, int n, int k, const Epilogue epilogue) {
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
  const int first = static_cast<int>(blockIdx.x), stride = static_cast<int>(gridDim.x);

  if (tid == 0) {
    common::tma_prefetch_tensor_map(a_map);
    common::tma_prefetch_tensor_map(b_map);
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&full[s], 1);
      common::mbarrier_init(&empty[s], kWarpsPerConsumer);
    }
    common::mbarrier_init_fence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    common::setmaxnreg_decrease<40>();
    if (tid == 0) {
      int step = 0;  // runs on across tiles: the ring's position
      for (int tile = first; tile < tiles; tile += stride) {
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
    const int consumer = warpgroup - 1;  // 0 takes the block's tiles 0, 2, ...; 1 takes 1, 3, ...
    const int lane = tid % 32;
    float top[64], bottom[64];  // rows 0–63 and 64–127 of this warpgroup's tile
    for (int i = consumer, tile = first + consumer * stride; tile < tiles;
         i += kConsumers, tile += kConsumers * stride) {
      const TileCoordinate t = grouped_tile(tile, tiles_m, tiles_n, kGroupRows);
      if (i > 0)  // the block's tile i - 1 is issued: every earlier k-step has been waited on
        wait_turn(consumer);
      int step = i * k_steps;  // where the producer put this tile's first k-step in the ring
      for (int kstep = 0; kstep < k_steps; ++kstep, ++step) {
        const int s = step % kStages;
        common::mbarrier_wait_parity(&full[s], static_cast<std::uint32_t>((step / kStages) % 2));
        const std::uint64_t desc_a = common::wgmma_descriptor_k_major_sw128(a_slot(s));
        const std::uint64_t desc_b = common::wgmma_descriptor_k_major_sw128(b_slot(s));
        common::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk) {
          const bool accumulate = kstep > 0 || kk > 0;
          common::wgmma_m64n128k16_bf16(top, desc_a + 2 * kk, desc_b + 2 * kk, accumulate);
          common::wgmma_m64n128k16_bf16(bottom, desc_a + 512 + 2 * kk, desc_b + 2 * kk, accumulate);
        }
        common::wgmma_commit_group();
        common::wgmma_wait_group<1>();
        if (kstep > 0 && lane == 0)
          common::mbarrier_arrive(&empty[(step - 1) % kStages]);
      }
      // This tile's last full wait is behind us and its wgmmas are queued: the other consumer may
      // start on the block's next tile (if there is one) while this one drains and stores.
      if (first + (i + 1) * stride < tiles)
        pass_turn(1 - consumer);
      common::wgmma_wait_group<0>();
      if (lane == 0)  // the tile's last slot: the producer refills it (for the other warpgroup)
        common::mbarrier_arrive(&empty[(step - 1) % kStages]);
      common::wgmma_fence_accumulators(top);
      common::wgmma_fence_accumulators(bottom);
      const auto ldc = static_cast<std::size_t>(n);
      const auto row0 = static_cast<std::size_t>(t.row) * kBlockM;
      const auto col0 = static_cast<std::size_t>(t.col) * kBlockN;
      common::store_wgmma_tile_bf16<128>(top, c, ldc, row0, col0, epilogue);
      common::store_wgmma_tile_bf16<128>(bottom, c, ldc, row0 + 64, col0, epilogue);
    }
  }
#else
  (void)a_map, (void)b_map, (void)c, (void)m, (void)n, (void)k, (void)epilogue;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

template <class Epilogue>
GemmBf16Launch prepare_pingpong(const GemmBf16Args& args, const cudaDeviceProp& device,
                                const char* name) {
  require_whole_tiles(args, kBlockM, kBlockN, kBlockK, name);
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument(std::string("gemm_bf16 ") + name + ": needs " +
                                std::to_string(kSharedBytes) + " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bf16_pingpong<Epilogue>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bf16 ") + name +
                             ": cudaFuncSetAttribute: " + cudaGetErrorString(status));
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
  // One block per SM, and no more blocks than there are tiles for their first consumer.
  const int tiles = (args.m / kBlockM) * (args.n / kBlockN);
  launch.grid = dim3(static_cast<unsigned>(std::min(tiles, device.multiProcessorCount)));
  launch.block = dim3(kThreads);
  launch.shared_bytes = kSharedBytes;
  return launch;
}

template <class Epilogue>
cudaError_t launch_pingpong(const GemmBf16Launch& launch, const Epilogue& epilogue,
                            cudaStream_t stream) {
  gemm_bf16_pingpong<Epilogue><<<launch.grid, launch.block, launch.shared_bytes, stream>>>(
      launch.a_map, launch.b_map, launch.args.c, launch.args.m, launch.args.n, launch.args.k,
      epilogue);
  return cudaGetLastError();
}

}  // namespace

GemmBf16Launch prepare_gemm_bf16_pingpong(const GemmBf16Args& args, const cudaDeviceProp& device) {
  return prepare_pingpong<common::EpilogueIdentity>(args, device, "pingpong");
}

cudaError_t launch_gemm_bf16_pingpong(const GemmBf16Launch& launch, cudaStream_t stream) {
  return launch_pingpong(launch, common::EpilogueIdentity{}, stream);
}

GemmBiasGeluLaunch prepare_gemm_bias_gelu_pingpong(const GemmBiasGeluArgs& args,
                                                   const cudaDeviceProp& device) {
  if (args.bias == nullptr || reinterpret_cast<std::uintptr_t>(args.bias) % 4 != 0)
    throw std::invalid_argument("gemm_bias_gelu pingpong: the bias must be non-null and 4-byte "
                                "aligned (it is read as bf16 pairs)");
  return {prepare_pingpong<common::EpilogueBiasGelu>(args.gemm, device, "bias_gelu_pingpong"),
          args.bias};
}

cudaError_t launch_gemm_bias_gelu_pingpong(const GemmBiasGeluLaunch& launch, cudaStream_t stream) {
  return launch_pingpong(launch.gemm, common::EpilogueBiasGelu{launch.bias}, stream);
}

}  // namespace aisp::ch10
