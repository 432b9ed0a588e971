// The persistent rung's kernel with bias + GELU in its epilogue: C = GELU_tanh(A·Bᵀ + bias).
// Everything up to the last wgmma is the persistent rung (gemm_bf16_persistent_kernel.cu: a
// producer warpgroup and two consumer warpgroups splitting a 128×256 tile, a 4-slot TMA ring,
// one block per SM walking the tiles in grouped order); what changed is the epilogue: each
// accumulator is added to its column's bias, passed through GELU (tanh form) and rounded to bf16
// once, in registers, before the same direct stores (chapters/common/gemm_epilogue_wgmma.cuh).
// The unfused alternative writes the GEMM's result, reads it back to add the bias, writes it,
// reads it back for the GELU and writes it again: 4·M·N·2 bytes more (pair gemm_bias_gelu).
// Both consumer warpgroups still store their halves at the same time, with no wgmma running on
// the SM: the ping-pong kernel (gemm_bf16_pingpong_kernel.cu) is the schedule that hides that.
// Bytes: 2·(M·K + N·K + M·N + N); FLOPs: 2·M·N·K (+ ~20 per output for bias and GELU).
// Ceiling: BF16 tensor.
// sm_90a only (wgmma, setmaxnreg): elsewhere the kernel body is a trap and the variant declares
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
    gemm_bias_gelu_persistent(const __grid_constant__ CUtensorMap a_map,
                              const __grid_constant__ CUtensorMap b_map,
                              __nv_bfloat16* __restrict__ c, int m, int n, int k,
                              const __nv_bfloat16* __restrict__ bias) {
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
      common::store_wgmma_tile_bf16<256>(d, c, static_cast<std::size_t>(n),
                                         static_cast<std::size_t>(t.row * kBlockM + 64 * consumer),
                                         static_cast<std::size_t>(t.col) * kBlockN,
                                         common::EpilogueBiasGelu{bias});
    }
  }
#else
  (void)a_map, (void)b_map, (void)c, (void)m, (void)n, (void)k, (void)bias;
  __trap();  // wgmma is sm_90a only: the variant declares Feature::wgmma and is skipped elsewhere
#endif
}

}  // namespace

GemmBiasGeluLaunch prepare_gemm_bias_gelu_persistent(const GemmBiasGeluArgs& args,
                                                     const cudaDeviceProp& device) {
  const GemmBf16Args& g = args.gemm;
  require_whole_tiles(g, kBlockM, kBlockN, kBlockK, "bias_gelu_persistent");
  if (args.bias == nullptr || reinterpret_cast<std::uintptr_t>(args.bias) % 4 != 0)
    throw std::invalid_argument("gemm_bias_gelu persistent: the bias must be non-null and 4-byte "
                                "aligned (it is read as bf16 pairs)");
  if (device.sharedMemPerBlockOptin < kSharedBytes)
    throw std::invalid_argument("gemm_bias_gelu persistent: needs " + std::to_string(kSharedBytes) +
                                " bytes of shared memory per block");
  const cudaError_t status = cudaFuncSetAttribute(
      gemm_bias_gelu_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("gemm_bias_gelu persistent: cudaFuncSetAttribute: ") +
                             cudaGetErrorString(status));
  GemmBiasGeluLaunch launch;
  launch.bias = args.bias;
  launch.gemm.args = g;
  launch.gemm.a_map = common::encode_tiled_matrix_2d({.base = g.a,
                                                      .rows = static_cast<std::uint64_t>(g.m),
                                                      .cols = static_cast<std::uint64_t>(g.k),
                                                      .box_rows = kBlockM,
                                                      .box_cols = kBlockK});
  launch.gemm.b_map = common::encode_tiled_matrix_2d({.base = g.b,
                                                      .rows = static_cast<std::uint64_t>(g.n),
                                                      .cols = static_cast<std::uint64_t>(g.k),
                                                      .box_rows = kBlockN,
                                                      .box_cols = kBlockK});
  const int tiles = (g.m / kBlockM) * (g.n / kBlockN);
  launch.gemm.grid = dim3(static_cast<unsigned>(std::min(tiles, device.multiProcessorCount)));
  launch.gemm.block = dim3(kThreads);
  launch.gemm.shared_bytes = kSharedBytes;
  return launch;
}

cudaError_t launch_gemm_bias_gelu_persistent(const GemmBiasGeluLaunch& launch,
                                             cudaStream_t stream) {
  const GemmBf16Launch& g = launch.gemm;
  gemm_bias_gelu_persistent<<<g.grid, g.block, g.shared_bytes, stream>>>(
      g.a_map, g.b_map, g.args.c, g.args.m, g.args.n, g.args.k, launch.bias);
  return cudaGetLastError();
}

}  // namespace aisp::ch10
