// Flash attention, FA2 arithmetic (mma.sync m16n8k16, no wgmma), the kernel behind two rungs that
// differ in how many query rows a warp owns (kMTiles m16 tiles). What changed vs the TMA rung
// (flash_attention_fa2_tma.cu: 4 warps × 32 rows, block barrier every tile, swizzled_offset per
// ldmatrix):
//   - the K/V tiles (64 keys × D) come through a kStages-deep TMA ring: full barriers counted by
//     the copy engine, empty barriers by the warps (one arrival each when done with a tile), and
//     warp 0's lane 0 refills a stage once every warp has released it. No block barrier in the
//     loop: warps drift apart, so their softmax phases stop lining up.
//   - ldmatrix addresses in XOR form (lane_offset, kstep_address): one LOP3 per k-step and tile,
//     the rest LDSM immediates, instead of ~4 integer instructions per load.
// The rungs:
//   - 32 rows per warp (kMTiles 2; `_fa2_32rows`, the FA2 rung that reaches the target): 4 warps
//     per 128-row block, every K/V fragment feeds two MMAs, Q re-read from shared memory each
//     tile, ≤ 255 registers, two blocks per SM, a 2-stage ring (96 KB per block at D 128).
//     Shared-memory reads: (8 + 16 + 16) KB per warp and tile for 1 MFLOP, 5/128 byte per FLOP.
//   - 16 rows per warp (kMTiles 1; `_fa2_16rows_pipelined`): 8 warps, O in 64 registers, so Q
//     stays in registers and the warp is software-pipelined: S_{t+1} = Q·K_{t+1}ᵀ is issued before
//     tile t's softmax (S twice). One block per SM (248 registers), a 4-stage ring (160 KB). Every
//     warp reads all of K and V for 16 rows: 1/16 byte per FLOP, and shared memory became the
//     busiest unit (ncu: 77%), which is why 32 rows per warp wins.
// Bytes (K/V from L2 once per 128-row block), FLOPs and ceiling as the other FA2 rungs.
// Unmasked only (the masked pairs use the FA3 rung).
#include <cuda_bf16.h>

#include <stdexcept>
#include <string>

#include "../common/mbarrier.cuh"
#include "../common/shared_address.cuh"
#include "../common/shared_alignment.cuh"
#include "../common/tma.cuh"
#include "attention_flash_variants.cuh"
#include "attention_kernels.cuh"
#include "flash_tile_mma_sync.cuh"

namespace aisp::ch18 {
namespace {

using flash::kBlockM;
using flash::kBlockN;
using flash::tile_bytes;

// kMTiles m16 tiles per warp: 1 (16 rows, 8 warps per 128-row block) or 2 (32 rows, 4 warps).
template <int kMTiles>
constexpr int kRowWarps = kBlockM / (16 * kMTiles);
template <int kMTiles>
constexpr int kRowThreads = 32 * kRowWarps<kMTiles>;
constexpr int kPanel = 64;  // one TMA box row: 64 BF16 = 128 bytes, the swizzle span

template <int kD>
__host__ __device__ constexpr int stage_bytes() {
  return 2 * tile_bytes<kD>(kBlockN);  // K then V
}

template <int kD, int kStages>
constexpr int rows_smem_bytes() {
  return tile_bytes<kD>(kBlockM) + kStages * stage_bytes<kD>() +
         static_cast<int>(common::kSharedAlignmentSlack);
}

// One warp's rows, kMTiles m16 tiles [mt]. Thread (g = lane / 4, q = lane % 4) holds rows g (h 0)
// and g + 8 (h 1) of each and, per 8-column n-tile, columns 2q and 2q + 1.
template <int kD, int kMTiles>
struct RowState {
  float o[kMTiles][kD / 8][4];
  float row_base[kMTiles][2];  // running max · scale_log2 (flash_tile_mma_sync.cuh, online_softmax)
  float row_sum[kMTiles][2];   // this thread's part of Σ p
};

// ldmatrix from a 32-bit shared-memory address (the swizzle arithmetic below works on it).
__device__ __forceinline__ void ldsm_x4(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldsm_x4_trans(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// Fewer address instructions. In a 64-key tile (swizzled_offset<kBlockN>), the 16-byte chunk of
// (row, col) is ((col / 8) % 8) ^ (row % 8). A lane's rows are row0 + 16·i (row % 8 fixed) and its
// columns 16·j + 8c (c ∈ {0, 1} fixed), so the chunk is (c ^ row % 8) ^ 2·(j % 4): the lane's own
// part (lane_offset) XOR a constant. With the tile 1024-byte aligned, the address of k-step j and
// 16-row group i is ((tile + lane_offset) ^ 32·(j % 4)) + 8192·(j / 4) + 2048·i: one LOP3 per
// j % 4 and tile, the rest immediate offsets of LDSM (swizzled_offset per load: ~4 integer
// instructions each: at 16 rows per warp ~250 per tile and thread, 35% of the loop's instructions).
__device__ __forceinline__ std::uint32_t lane_offset(int row, int chunk_in_pair) {
  return static_cast<std::uint32_t>(row * 128 + ((chunk_in_pair ^ (row & 7)) << 4));
}
// kRows: the tile's rows (a 64-column panel is kRows · 128 bytes).
template <int kRows = kBlockN>
__device__ __forceinline__ std::uint32_t kstep_address(std::uint32_t lane_address, int j, int i) {
  return (lane_address ^ static_cast<std::uint32_t>((j & 3) << 5)) +
         static_cast<std::uint32_t>((j >> 2) * kRows * 128 + i * 16 * 128);
}

// Q's A fragments: in registers (kQInRegisters: all D/16 k-steps, loaded once) or re-read from
// the Q tile every time (one k-step's worth).
template <int kD, bool kQInRegisters>
using QFragments = std::uint32_t[kQInRegisters ? kD / 16 : 1][4];

// S = Q_warp · K_tileᵀ. Q from q (kQInRegisters) or by ldmatrix at q_lane (the Q tile's shared
// address plus this lane's lane_offset: A matrices (rows 0-7 | 8-15) × (cols 0-7 | 8-15) in the
// order a0..a3). k_lane: the K tile's address plus this lane's lane_offset (B matrices (keys 0-7,
// dims 0-7), (keys 0-7, dims 8-15), (keys 8-15, dims 0-7), (keys 8-15, dims 8-15): b0, b1 of
// n-tile 0, then of n-tile 1). kStepUnroll: how many k-steps ptxas may unroll. At 32 rows and
// D 128, unrolled by 2 the kernel fits 255 registers without spilling; fully unrolled ptxas
// hoists later k-steps' fragments and spills 32 bytes (ptxas -v, sm_90a). Q in registers needs
// the full unroll (static indices).
template <int kD, int kMTiles, bool kQInRegisters, int kStepUnroll = kD / 16>
__device__ __forceinline__ void warp_scores(float (&s)[kMTiles][kBlockN / 8][4],
                                            const QFragments<kD, kQInRegisters>& q,
                                            std::uint32_t q_lane, std::uint32_t k_lane) {
  static_assert(!kQInRegisters || kMTiles == 1, "Q in registers: one m-tile per warp only");
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < kBlockN / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[mt][nt][e] = 0.0f;
#pragma unroll kStepUnroll
  for (int ks = 0; ks < kD / 16; ++ks) {
    std::uint32_t a[kMTiles][4];
    if constexpr (kQInRegisters) {
#pragma unroll
      for (int e = 0; e < 4; ++e)
        a[0][e] = q[ks][e];
    } else {
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
        ldsm_x4(a[mt], kstep_address<kBlockM>(q_lane, ks, mt));
    }
#pragma unroll
    for (int np = 0; np < kBlockN / 16; ++np) {
      std::uint32_t b[4];
      ldsm_x4(b, kstep_address(k_lane, ks, np));
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        common::mma_m16n8k16_bf16(s[mt][2 * np], a[mt], b[0], b[1]);
        common::mma_m16n8k16_bf16(s[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }
}

// Online softmax of one tile (the same arithmetic as flash_tile_mma_sync.cuh's online_softmax for
// one m-tile): P as BF16 A fragments of the P·V k-steps, O and the sum rescaled.
template <int kD, int kMTiles>
__device__ __forceinline__ void warp_softmax(const float (&s)[kMTiles][kBlockN / 8][4],
                                             std::uint32_t (&p)[kMTiles][kBlockN / 16][4],
                                             RowState<kD, kMTiles>& st, float scale_log2) {
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < kBlockN / 8; ++nt)
        tile_max = fmaxf(tile_max, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      // Unmasked: every tile has a finite max, so the base is finite after the first tile and the
      // first tile's correction is 2^(-inf) = 0 (O and the sum are 0 then anyway).
      const float base = fmaxf(st.row_base[mt][h], tile_max * scale_log2);
      const float correction = common::exp2_approx(st.row_base[mt][h] - base);
      st.row_base[mt][h] = base;
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < kBlockN / 8; ++nt) {
        const float p0 = common::exp2_approx(fmaf(s[mt][nt][2 * h], scale_log2, -base));
        const float p1 = common::exp2_approx(fmaf(s[mt][nt][2 * h + 1], scale_log2, -base));
        sum += p0 + p1;
        p[mt][nt / 2][(nt % 2) * 2 + h] = common::pack_bf16x2(p0, p1);
      }
      st.row_sum[mt][h] = st.row_sum[mt][h] * correction + sum;
#pragma unroll
      for (int dt = 0; dt < kD / 8; ++dt) {
        st.o[mt][dt][2 * h] *= correction;
        st.o[mt][dt][2 * h + 1] *= correction;
      }
    }
}

// O += P·V_tile, V by ldmatrix.trans. v_lane: the V tile's shared address plus this lane's
// lane_offset (matrices (keys 0-7, dims 0-7), (keys 8-15, dims 0-7), (keys 0-7, dims 8-15),
// (keys 8-15, dims 8-15): b0, b1 of the first dim n-tile, then of the second).
template <int kD, int kMTiles>
__device__ __forceinline__ void
warp_accumulate_pv(RowState<kD, kMTiles>& st, const std::uint32_t (&p)[kMTiles][kBlockN / 16][4],
                   std::uint32_t v_lane) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk)
#pragma unroll
    for (int dp = 0; dp < kD / 16; ++dp) {
      std::uint32_t b[4];
      ldsm_x4_trans(b, kstep_address(v_lane, dp, kk));
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        common::mma_m16n8k16_bf16(st.o[mt][2 * dp], p[mt][kk], b[0], b[1]);
        common::mma_m16n8k16_bf16(st.o[mt][2 * dp + 1], p[mt][kk], b[2], b[3]);
      }
    }
}

// One thread: K and V of `tile` into the stage at k_stage (K, then V one tile later).
template <int kD>
__device__ __forceinline__ void start_stage_copy(const CUtensorMap& k_map, const CUtensorMap& v_map,
                                                 std::uint8_t* k_stage, std::uint64_t* full,
                                                 int head_row, int tile) {
  common::mbarrier_arrive_expect_tx(full, stage_bytes<kD>());
  const int row = head_row + tile * kBlockN;
  std::uint8_t* v_stage = k_stage + tile_bytes<kD>(kBlockN);
#pragma unroll
  for (int p = 0; p < kD / kPanel; ++p) {
    common::tma_load_2d(k_stage + p * kBlockN * 128, k_map, full, p * kPanel, row);
    common::tma_load_2d(v_stage + p * kBlockN * 128, v_map, full, p * kPanel, row);
  }
}

// kMTiles: m16 tiles per warp (1: 8 warps of 16 rows; 2: 4 warps of 32 rows). kPipelined:
// S_{t+1} issued before tile t's softmax. kQInRegisters: Q loaded into registers once.
// kBlocksPerSm: the launch bound (at 8 warps, 1: up to 255 registers, 2: 128; at 4 warps, 2: 255).
// kStages: K/V ring depth.
template <int kD, int kMTiles, bool kPipelined, bool kQInRegisters, int kBlocksPerSm, int kStages>
__global__ void __launch_bounds__(kRowThreads<kMTiles>, kBlocksPerSm)
    flash_fa2_rows_kernel(const __grid_constant__ CUtensorMap q_map,
                          const __grid_constant__ CUtensorMap k_map,
                          const __grid_constant__ CUtensorMap v_map, __nv_bfloat16* __restrict__ o,
                          int seq, float scale_log2) {
  extern __shared__ std::uint8_t smem_window[];
  std::uint8_t* q_tile = common::align_shared_1024(smem_window);
  std::uint8_t* stages = q_tile + tile_bytes<kD>(kBlockM);
  __shared__ __align__(8) std::uint64_t q_full;
  __shared__ __align__(8) std::uint64_t full[kStages];
  __shared__ __align__(8) std::uint64_t empty[kStages];

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const bool leader = threadIdx.x == 0;
  const int m0 = static_cast<int>(blockIdx.x) * kBlockM;
  const int head_row = static_cast<int>(blockIdx.y) * seq;  // the head's first row, 2D view
  const int tiles = seq / kBlockN;
  const auto k_tile = [&](int t) { return stages + (t % kStages) * stage_bytes<kD>(); };
  // This lane's ldmatrix addresses in the K and V tiles of tile t (lane_offset, kstep_address).
  const std::uint32_t k_lane0 =
      common::shared_address(stages) + lane_offset((lane & 7) + (lane >> 4) * 8, (lane >> 3) & 1);
  const std::uint32_t v_lane0 = common::shared_address(stages) + tile_bytes<kD>(kBlockN) +
                                lane_offset((lane & 7) + ((lane >> 3) & 1) * 8, lane >> 4);
  const auto k_lane = [&](int t) {
    return k_lane0 + static_cast<std::uint32_t>((t % kStages) * stage_bytes<kD>());
  };
  const auto v_lane = [&](int t) {
    return v_lane0 + static_cast<std::uint32_t>((t % kStages) * stage_bytes<kD>());
  };
  const auto parity = [](int t) { return static_cast<std::uint32_t>((t / kStages) & 1); };

  if (leader) {
    common::mbarrier_init(&q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      common::mbarrier_init(&full[s], 1);
      common::mbarrier_init(&empty[s], kRowWarps<kMTiles>);
    }
    common::mbarrier_init_fence();
    common::fence_proxy_async_shared();
  }
  __syncthreads();
  if (leader) {
    common::mbarrier_arrive_expect_tx(&q_full, tile_bytes<kD>(kBlockM));
#pragma unroll
    for (int p = 0; p < kD / kPanel; ++p)
      common::tma_load_2d(q_tile + p * kBlockM * 128, q_map, &q_full, p * kPanel, head_row + m0);
    for (int t = 0; t < kStages && t < tiles; ++t)
      start_stage_copy<kD>(k_map, v_map, k_tile(t), &full[t % kStages], head_row, t);
  }

  // This lane's ldmatrix address in the Q tile; with kQInRegisters Q's fragments are read once.
  const std::uint32_t q_lane =
      common::shared_address(q_tile) +
      lane_offset(warp * 16 * kMTiles + (lane & 7) + ((lane >> 3) & 1) * 8, lane >> 4);
  QFragments<kD, kQInRegisters> q;
  common::mbarrier_wait_parity(&q_full, 0);
  if constexpr (kQInRegisters) {
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks)
      ldsm_x4(q[ks], kstep_address<kBlockM>(q_lane, ks, 0));
  }

  RowState<kD, kMTiles> st;
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
    for (int dt = 0; dt < kD / 8; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        st.o[mt][dt][e] = 0.0f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      st.row_base[mt][h] = -INFINITY;
      st.row_sum[mt][h] = 0.0f;
    }
  }

  // The end of tile t: this warp is done with its stage; warp 0's lane 0 then refills the stage of
  // tile t − kLag once every warp has released it. With 3+ stages kLag = 1: a warp may run a tile
  // ahead of the slowest without anyone waiting, and the refill lands kStages − 2 tiles (in
  // order; pipelined: kStages − 3) before it is needed. With 2 stages (32 rows at D 128: two
  // blocks per SM leave no shared memory for more) kLag = 0 keeps one tile of lead; warp 0 then
  // waits for the slowest warp of its block (the other block keeps the SM busy meanwhile).
  constexpr int kLag = kStages > 2 ? 1 : 0;
  constexpr int kStepUnroll = kMTiles == 2 ? 2 : kD / 16;  // see warp_scores
  const auto release = [&](int t) {
    __syncwarp();
    if (lane == 0)
      common::mbarrier_arrive(&empty[t % kStages]);
    const int done = t - kLag, refill = t - kLag + kStages;
    if (leader && done >= 0 && refill < tiles) {
      common::mbarrier_wait_parity(&empty[done % kStages], parity(done));
      start_stage_copy<kD>(k_map, v_map, k_tile(done), &full[done % kStages], head_row, refill);
    }
  };

  float s[kMTiles][kBlockN / 8][4];
  std::uint32_t p[kMTiles][kBlockN / 16][4];
  if constexpr (kPipelined) {
    // S_{t+1} is in flight on the tensor cores while tile t's softmax runs.
    common::mbarrier_wait_parity(&full[0], parity(0));
    warp_scores<kD, kMTiles, kQInRegisters, kStepUnroll>(s, q, q_lane, k_lane(0));
    for (int t = 0; t + 1 < tiles; ++t) {
      common::mbarrier_wait_parity(&full[(t + 1) % kStages], parity(t + 1));
      float s_next[kMTiles][kBlockN / 8][4];
      warp_scores<kD, kMTiles, kQInRegisters, kStepUnroll>(s_next, q, q_lane, k_lane(t + 1));
      warp_softmax<kD, kMTiles>(s, p, st, scale_log2);
      warp_accumulate_pv<kD, kMTiles>(st, p, v_lane(t));
      release(t);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int nt = 0; nt < kBlockN / 8; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e)
            s[mt][nt][e] = s_next[mt][nt][e];
    }
    warp_softmax<kD, kMTiles>(s, p, st, scale_log2);
    warp_accumulate_pv<kD, kMTiles>(st, p, v_lane(tiles - 1));
  } else {
    for (int t = 0; t < tiles; ++t) {
      common::mbarrier_wait_parity(&full[t % kStages], parity(t));
      warp_scores<kD, kMTiles, kQInRegisters, kStepUnroll>(s, q, q_lane, k_lane(t));
      warp_softmax<kD, kMTiles>(s, p, st, scale_log2);
      warp_accumulate_pv<kD, kMTiles>(st, p, v_lane(t));
      release(t);
    }
  }

  // O / l, rounded to BF16.
  const int g = lane >> 2, qd = lane & 3;
  __nv_bfloat16* o_head = o + static_cast<long long>(head_row) * kD;
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float l = st.row_sum[mt][h];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = 1.0f / l;  // unmasked: every row sees every key, l ≥ 1
      __nv_bfloat16* out =
          o_head + static_cast<long long>(m0 + (warp * kMTiles + mt) * 16 + g + 8 * h) * kD;
#pragma unroll
      for (int dt = 0; dt < kD / 8; ++dt)
        *reinterpret_cast<std::uint32_t*>(out + dt * 8 + 2 * qd) =
            common::pack_bf16x2(st.o[mt][dt][2 * h] * inv, st.o[mt][dt][2 * h + 1] * inv);
    }
}

template <int kD, int kMTiles, bool kPipelined, bool kQInRegisters, int kBlocksPerSm, int kStages>
void launch(const ForwardShape& shape, const FlashTmaMaps& maps, __nv_bfloat16* o,
            cudaStream_t stream) {
  const auto kernel =
      flash_fa2_rows_kernel<kD, kMTiles, kPipelined, kQInRegisters, kBlocksPerSm, kStages>;
  constexpr int kSmem = rows_smem_bytes<kD, kStages>();
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("flash FA2, 16/32 rows per warp: cannot raise shared "
                                         "memory to ") +
                             std::to_string(kSmem) + " bytes: " + cudaGetErrorString(status));
  const dim3 grid(static_cast<unsigned>(shape.seq / kBlockM),
                  static_cast<unsigned>(shape.batch * shape.heads));
  kernel<<<grid, kRowThreads<kMTiles>, kSmem, stream>>>(maps.q, maps.k, maps.v, o, shape.seq,
                                                        shape.softmax_scale() * flash::kLog2e);
}

}  // namespace

void launch_flash_fa2_rows(const ForwardShape& shape, const FlashTmaMaps& maps, __nv_bfloat16* o,
                           RowsKernel kernel, cudaStream_t stream) {
  check_flash_shape(shape, "flash FA2, 16/32 rows per warp");
  if (shape.mask != MaskKind::none)
    throw std::invalid_argument("flash FA2, 16/32 rows per warp: built for the unmasked problem "
                                "only");
  const bool rows32 = kernel == RowsKernel::rows32;
  // <kD, kMTiles, kPipelined, kQInRegisters, kBlocksPerSm, kStages>
  if (shape.head_dim == 64) {
    // 32 rows: 203 registers, so two blocks per SM as at D 128, with room for 4 stages (81 KB).
    // 16 rows pipelined fits 128 registers at D 64 (ptxas -v): two blocks, 16 warps per SM.
    return rows32 ? launch<64, 2, false, false, 2, 4>(shape, maps, o, stream)
                  : launch<64, 1, true, true, 2, 4>(shape, maps, o, stream);
  }
  return rows32 ? launch<128, 2, false, false, 2, 2>(shape, maps, o, stream)
                : launch<128, 1, true, true, 1, 4>(shape, maps, o, stream);
}

}  // namespace aisp::ch18
