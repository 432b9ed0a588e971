// Flash attention, FA2 arithmetic with a TMA pipeline. What changed vs flash_attention_fa2.cu: the
// K and V tiles are brought by the Tensor Memory Accelerator instead of by the threads. One thread
// arms a stage's mbarrier with the bytes to expect and issues the tile's bulk tensor copies
// (K and V, 64 keys × D, as 64-column boxes written in the 128-byte-swizzled layout the warps'
// ldmatrix addressing already uses); the copy engine counts the bytes down on the mbarrier and
// the warps wait on its phase. Two stages: tile t+1's K and V stream in during the whole of
// tile t's Q·Kᵀ, softmax and P·V (the cp.async rung overlapped V_t with Q·K_tᵀ and K_{t+1} with
// P·V_t only), and the loads cost the warps no instructions or registers.
// Ordering: the mbarriers are initialised and fenced before the first copy; a stage is refilled
// only after the barrier that ends the iteration which read it. Stage s serves tiles s, s+2, ...:
// its k-th use waits for phase parity k mod 2.
// 96 KiB of shared memory at D 128 (Q + two K and two V stages): two blocks per SM, as before.
// Bytes, FLOPs and ceiling as the cp.async rung.
#include <cuda_bf16.h>

#include <stdexcept>
#include <string>

#include "../common/mbarrier.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tensor_map.hpp"
#include "../common/tma.cuh"
#include "attention_kernels.cuh"
#include "flash_tile_mma_sync.cuh"

namespace aisp::ch18 {
namespace {

using namespace flash;

constexpr int kStages = 2;
constexpr int kPanelCols = 64;  // one TMA box row: 64 BF16 = 128 bytes, the swizzle span

template <int kD>
__host__ __device__ constexpr int kv_stage_bytes() {
  return 2 * tile_bytes<kD>(kBlockN);
}

// One thread: the K and V tiles `tile` of the head starting at row `head_row` into a stage.
template <int kD>
__device__ __forceinline__ void start_kv_copy(const CUtensorMap& k_map, const CUtensorMap& v_map,
                                              std::uint8_t* k_tile, std::uint8_t* v_tile,
                                              std::uint64_t* full, int head_row, int tile) {
  common::mbarrier_arrive_expect_tx(full, kv_stage_bytes<kD>());
  const int row = head_row + tile * kBlockN;
#pragma unroll
  for (int p = 0; p < kD / kPanelCols; ++p) {
    common::tma_load_2d(k_tile + p * kBlockN * 128, k_map, full, p * kPanelCols, row);
    common::tma_load_2d(v_tile + p * kBlockN * 128, v_map, full, p * kPanelCols, row);
  }
}

// kComputeKeys: keys per score/softmax/P·V pass over a 64-key tile (64: one pass; 32: two,
// S in 32 registers instead of 64; unmasked only). kStepUnroll: unrolling of the Q·Kᵀ k-loop
// (warp_scores; D/16 = fully unrolled, the rung-2 kernel; 1 = rolled, the "rolled" rung).
template <int kD, MaskKind kMask, bool kSkipMaskedTiles, int kComputeKeys = kBlockN,
          int kStepUnroll = kD / 16>
__global__ void __launch_bounds__(kThreads, 2)
    flash_fa2_tma_kernel(const __grid_constant__ CUtensorMap q_map,
                         const __grid_constant__ CUtensorMap k_map,
                         const __grid_constant__ CUtensorMap v_map, __nv_bfloat16* __restrict__ o,
                         int seq, int window, float scale_log2) {
  extern __shared__ std::uint8_t smem_window[];
  std::uint8_t* q_tile = common::align_shared_1024(smem_window);
  std::uint8_t* k_tiles = q_tile + tile_bytes<kD>(kBlockM);
  std::uint8_t* v_tiles = k_tiles + kStages * tile_bytes<kD>(kBlockN);
  __shared__ __align__(8) std::uint64_t q_full;
  __shared__ __align__(8) std::uint64_t kv_full[kStages];

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const bool leader = threadIdx.x == 0;
  const int m0 = block_m_index<kMask>() * kBlockM;
  const int head_row = static_cast<int>(blockIdx.y) * seq;  // the head's first row, 2D view
  const TileRange<kMask, kSkipMaskedTiles> tiles(m0, seq, window);
  const auto k_tile = [&](int s) { return k_tiles + s * tile_bytes<kD>(kBlockN); };
  const auto v_tile = [&](int s) { return v_tiles + s * tile_bytes<kD>(kBlockN); };

  if (leader) {
    common::mbarrier_init(&q_full, 1);
    for (int s = 0; s < kStages; ++s)
      common::mbarrier_init(&kv_full[s], 1);
    common::mbarrier_init_fence();
    common::fence_proxy_async_shared();
  }
  __syncthreads();
  if (leader) {
    common::mbarrier_arrive_expect_tx(&q_full, tile_bytes<kD>(kBlockM));
#pragma unroll
    for (int p = 0; p < kD / kPanelCols; ++p)
      common::tma_load_2d(q_tile + p * kBlockM * 128, q_map, &q_full, p * kPanelCols,
                          head_row + m0);
    start_kv_copy<kD>(k_map, v_map, k_tile(0), v_tile(0), &kv_full[0], head_row, tiles.first);
  }
  common::mbarrier_wait_parity(&q_full, 0);

  WarpAccumulator<kD> acc;
  acc.clear();
  for (int t = tiles.first, i = 0; t < tiles.last; ++t, ++i) {
    const int stage = i % kStages;
    // The other stage was last read in iteration i - 1, whose closing barrier all have passed.
    if (leader && t + 1 < tiles.last)
      start_kv_copy<kD>(k_map, v_map, k_tile(1 - stage), v_tile(1 - stage), &kv_full[1 - stage],
                        head_row, t + 1);
    common::mbarrier_wait_parity(&kv_full[stage], static_cast<std::uint32_t>((i / kStages) % 2));

    static_assert(kComputeKeys == kBlockN || kMask == MaskKind::none,
                  "the masked kernels compute whole 64-key tiles");
#pragma unroll
    for (int key0 = 0; key0 < kBlockN; key0 += kComputeKeys) {
      float s[2][kComputeKeys / 8][4];
      warp_scores<kD, kComputeKeys, kStepUnroll>(s, q_tile, k_tile(stage), warp, lane, key0);
      if constexpr (kMask != MaskKind::none && kComputeKeys == kBlockN)
        if (tile_needs_mask<kMask>(m0, t * kBlockN, window))
          mask_scores<kMask>(s, m0 + warp * kRowsPerWarp, t * kBlockN, window, lane);
      std::uint32_t p[2][kComputeKeys / 16][4];
      online_softmax<kD, kComputeKeys>(s, p, acc, scale_log2);
      warp_accumulate_pv<kD, kComputeKeys>(acc, p, v_tile(stage), lane, key0);
    }
    __syncthreads();  // every warp is done with this stage before iteration i + 1 refills it
  }
  store_output<kD>(acc, o + static_cast<long long>(head_row) * kD, m0 + warp * kRowsPerWarp, lane);
}

template <int kD>
constexpr int smem_bytes() {
  return tile_bytes<kD>(kBlockM) + kStages * kv_stage_bytes<kD>() +
         static_cast<int>(common::kSharedAlignmentSlack);
}

template <int kD, MaskKind kMask, bool kSkipMaskedTiles, int kComputeKeys = kBlockN,
          int kStepUnroll = kD / 16>
void launch(const ForwardShape& shape, const FlashTmaMaps& maps, __nv_bfloat16* o,
            cudaStream_t stream) {
  const auto kernel = flash_fa2_tma_kernel<kD, kMask, kSkipMaskedTiles, kComputeKeys, kStepUnroll>;
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes<kD>());
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("flash FA2 TMA: cannot raise shared memory to ") +
                             std::to_string(smem_bytes<kD>()) +
                             " bytes: " + cudaGetErrorString(status));
  const dim3 grid(static_cast<unsigned>(shape.seq / kBlockM),
                  static_cast<unsigned>(shape.batch * shape.heads));
  kernel<<<grid, kThreads, smem_bytes<kD>(), stream>>>(
      maps.q, maps.k, maps.v, o, shape.seq, shape.window, shape.softmax_scale() * kLog2e);
}

}  // namespace

FlashTmaMaps make_flash_tma_maps(const ForwardShape& shape, const ForwardTensors& tensors) {
  check_flash_shape(shape, "flash FA2 TMA");
  const auto map = [&](const __nv_bfloat16* base, int box_rows) {
    common::TiledMatrix2d m;
    m.base = base;
    m.rows = static_cast<std::uint64_t>(shape.batch) * shape.heads * shape.seq;
    m.cols = static_cast<std::uint64_t>(shape.head_dim);
    m.box_rows = static_cast<std::uint32_t>(box_rows);
    m.box_cols = kPanelCols;
    return common::encode_tiled_matrix_2d(m);
  };
  return {map(tensors.q, kBlockM), map(tensors.k, kBlockN), map(tensors.v, kBlockN)};
}

void launch_flash_fa2_tma(const ForwardShape& shape, const FlashTmaMaps& maps, __nv_bfloat16* o,
                          MaskedTiles /*masked*/, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA2 TMA");
  // Built unmasked only (the masked pairs use the best rung): fewer instantiations to compile.
  if (shape.mask != MaskKind::none)
    throw std::invalid_argument("flash FA2 TMA: built for the unmasked problem only");
  if (shape.head_dim == 64)
    return launch<64, MaskKind::none, false>(shape, maps, o, stream);
  launch<128, MaskKind::none, false>(shape, maps, o, stream);
}

void launch_flash_fa2_tma_rolled(const ForwardShape& shape, const FlashTmaMaps& maps,
                                 __nv_bfloat16* o, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA2 TMA, rolled k-loop");
  if (shape.mask != MaskKind::none || shape.head_dim != 128)
    throw std::invalid_argument("flash FA2 TMA, rolled k-loop: built for the unmasked problem at "
                                "head_dim 128 only (where the unrolled kernel spills)");
  launch<128, MaskKind::none, false, kBlockN, 1>(shape, maps, o, stream);
}

#ifdef AISP_ATTENTION_PROBE_SWEEP
// Probe only (scripts/probes/attention_probe.cu builds this file with the macro defined): the
// unmasked D 128 kernel in the register-budget configurations compared when the rolled rung was
// chosen without a GPU. Returns false for a configuration not built here.
bool launch_flash_fa2_tma_config(const ForwardShape& shape, const FlashTmaMaps& maps,
                                 __nv_bfloat16* o, int compute_keys, int step_unroll,
                                 cudaStream_t stream) {
  check_flash_shape(shape, "flash FA2 TMA sweep");
  if (shape.mask != MaskKind::none || shape.head_dim != 128)
    return false;
  const int config = compute_keys * 100 + step_unroll;
  switch (config) {
  case 6408:
    return launch<128, MaskKind::none, false, 64, 8>(shape, maps, o, stream), true;
  case 6402:
    return launch<128, MaskKind::none, false, 64, 2>(shape, maps, o, stream), true;
  case 6401:
    return launch<128, MaskKind::none, false, 64, 1>(shape, maps, o, stream), true;
  case 3208:
    return launch<128, MaskKind::none, false, 32, 8>(shape, maps, o, stream), true;
  case 3204:
    return launch<128, MaskKind::none, false, 32, 4>(shape, maps, o, stream), true;
  case 3202:
    return launch<128, MaskKind::none, false, 32, 2>(shape, maps, o, stream), true;
  case 3201:
    return launch<128, MaskKind::none, false, 32, 1>(shape, maps, o, stream), true;
  default:
    return false;
  }
}
#endif

}  // namespace aisp::ch18
