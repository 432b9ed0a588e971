// Flash attention, FlashAttention-2 style: one fused kernel, the S×S matrices never leave the SM.
// A block (4 warps) owns 128 query rows of one (batch, head); it streams the head's K and V
// through shared memory in tiles of 64 keys with cp.async (16-byte asynchronous copies, issued by
// every thread), and each warp keeps its 32 rows' scores, probabilities and output in registers
// (flash_tile_mma_sync.cuh: mma.sync m16n8k16, ldmatrix, online softmax).
// Pipeline (as FlashAttention-2's): one K and one V buffer; V_j is copied while S_j = Q·K_jᵀ and
// its softmax run, K_{j+1} while O += P_j·V_j runs. 64 KiB of shared memory at D 128, ≤ 255
// registers per thread: two blocks (8 warps) per SM.
// Bytes: Q, K, V read (K and V once per 128-row block: S/128 = 32 times per head, from L2 mostly),
// O written. FLOPs 4·B·H·S²·D over the visible pairs. Ceiling: BF16 tensor; mma.sync reaches only
// part of it on Hopper (wgmma is the full-rate path: flash_attention_fa3.cu).
#include <cuda_bf16.h>

#include <stdexcept>
#include <string>

#include "attention_kernels.cuh"
#include "flash_tile_mma_sync.cuh"

namespace aisp::ch18 {
namespace {

using namespace flash;

// Copies a kRows × kD tile (rows kD elements apart in global memory) into the swizzled layout,
// 16 bytes per cp.async, consecutive threads on consecutive chunks (coalesced).
template <int kD, int kRows>
__device__ __forceinline__ void copy_tile_async(std::uint8_t* tile, const __nv_bfloat16* src) {
  constexpr int kChunksPerRow = kD / 8;
#pragma unroll
  for (int c = static_cast<int>(threadIdx.x); c < kRows * kChunksPerRow; c += kThreads) {
    const int row = c / kChunksPerRow, col = (c % kChunksPerRow) * 8;
    common::cp_async_16(tile + swizzled_offset<kRows>(row, col), src + row * kD + col);
  }
}

template <int kD, MaskKind kMask, bool kSkipMaskedTiles>
__global__ void __launch_bounds__(kThreads, 2)
    flash_fa2_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                     const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, int seq,
                     int window, float scale_log2) {
  extern __shared__ __align__(128) std::uint8_t smem[];
  std::uint8_t* q_tile = smem;
  std::uint8_t* k_tile = q_tile + tile_bytes<kD>(kBlockM);
  std::uint8_t* v_tile = k_tile + tile_bytes<kD>(kBlockN);

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int m0 = block_m_index<kMask>() * kBlockM;
  const long long head = static_cast<long long>(blockIdx.y) * seq * kD;
  const __nv_bfloat16* k_head = k + head;
  const __nv_bfloat16* v_head = v + head;
  const TileRange<kMask, kSkipMaskedTiles> tiles(m0, seq, window);

  copy_tile_async<kD, kBlockM>(q_tile, q + head + static_cast<long long>(m0) * kD);
  common::cp_async_commit();
  copy_tile_async<kD, kBlockN>(k_tile, k_head + static_cast<long long>(tiles.first) * kBlockN * kD);
  common::cp_async_commit();

  WarpAccumulator<kD> acc;
  acc.clear();
  for (int t = tiles.first; t < tiles.last; ++t) {
    common::cp_async_wait<0>();  // K_t (and Q) landed
    __syncthreads();             // ... for every thread; and V_{t-1} is no longer read
    copy_tile_async<kD, kBlockN>(v_tile, v_head + static_cast<long long>(t) * kBlockN * kD);
    common::cp_async_commit();

    float s[2][8][4];
    warp_scores<kD>(s, q_tile, k_tile, warp, lane);
    if (tile_needs_mask<kMask>(m0, t * kBlockN, window))
      mask_scores<kMask>(s, m0 + warp * kRowsPerWarp, t * kBlockN, window, lane);
    std::uint32_t p[2][kBlockN / 16][4];
    online_softmax<kD>(s, p, acc, scale_log2);

    common::cp_async_wait<0>();  // V_t landed
    __syncthreads();             // ... for every thread; and K_t is no longer read
    if (t + 1 < tiles.last) {
      copy_tile_async<kD, kBlockN>(k_tile, k_head + static_cast<long long>(t + 1) * kBlockN * kD);
      common::cp_async_commit();
    }
    warp_accumulate_pv<kD>(acc, p, v_tile, lane);
  }
  store_output<kD>(acc, o + head, m0 + warp * kRowsPerWarp, lane);
}

template <int kD, MaskKind kMask, bool kSkipMaskedTiles>
void launch(const ForwardShape& shape, const ForwardTensors& t, cudaStream_t stream) {
  const auto kernel = flash_fa2_kernel<kD, kMask, kSkipMaskedTiles>;
  constexpr int kSmem = tile_bytes<kD>(kBlockM) + 2 * tile_bytes<kD>(kBlockN);
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("flash FA2: cannot raise shared memory to ") +
                             std::to_string(kSmem) + " bytes: " + cudaGetErrorString(status));
  const dim3 grid(static_cast<unsigned>(shape.seq / kBlockM),
                  static_cast<unsigned>(shape.batch * shape.heads));
  kernel<<<grid, kThreads, kSmem, stream>>>(t.q, t.k, t.v, t.o, shape.seq, shape.window,
                                            shape.softmax_scale() * kLog2e);
}

void launch_for_head_dim_128(const ForwardShape& shape, const ForwardTensors& t, MaskedTiles masked,
                             cudaStream_t stream) {
  const bool skip = masked == MaskedTiles::skip;
  switch (shape.mask) {
  case MaskKind::none:
    return launch<128, MaskKind::none, false>(shape, t, stream);
  case MaskKind::causal:
    return skip ? launch<128, MaskKind::causal, true>(shape, t, stream)
                : launch<128, MaskKind::causal, false>(shape, t, stream);
  case MaskKind::sliding_window:
    return skip ? launch<128, MaskKind::sliding_window, true>(shape, t, stream)
                : launch<128, MaskKind::sliding_window, false>(shape, t, stream);
  }
}

}  // namespace

void launch_flash_fa2(const ForwardShape& shape, const ForwardTensors& tensors, MaskedTiles masked,
                      cudaStream_t stream) {
  check_flash_shape(shape, "flash FA2");
  if (shape.head_dim == 128)
    return launch_for_head_dim_128(shape, tensors, masked, stream);
  // Head dim 64 is built unmasked only (the masked pairs are at 128): fewer instantiations.
  if (shape.mask != MaskKind::none)
    throw std::invalid_argument("flash FA2: masks are built for head_dim 128 only");
  launch<64, MaskKind::none, false>(shape, tensors, stream);
}

void check_flash_shape(const ForwardShape& shape, const char* kernel) {
  if ((shape.head_dim != 64 && shape.head_dim != 128) || shape.seq % flash::kBlockM != 0 ||
      (shape.mask == MaskKind::sliding_window && shape.window < 1))
    throw std::invalid_argument(std::string(kernel) + ": built for head_dim 64 or 128 and seq a " +
                                "multiple of 128 (got head_dim " + std::to_string(shape.head_dim) +
                                ", seq " + std::to_string(shape.seq) + ")");
}

}  // namespace aisp::ch18
