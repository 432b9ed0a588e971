// Optimized, bit-identical: the 64 operations fused into one kernel, each still rounded on its own
// (the A/B beside optimized_elementwise_chain, which contracts each multiply-add pair into an FMA
// and is bound by HBM rather than by issue). What changed vs the baseline: each thread
// loads its float4s once, applies all 64 operations in registers (fully unrolled, so every
// constant is an immediate operand), and stores once. The memory traffic falls from 32 GiB to
// 512 MiB, 64× less; the arithmetic is the same 64 rounded operations per element, in the same
// order, so the result is bit-identical to the 64 kernels'.
// What limits it: 64 FP32 instructions per 8 bytes puts the kernel at the H200's ridge point (the
// problem header works it through): the FP32 issue rate and the copy bandwidth take about the
// same time, so the fused kernel reaches the copy ceiling only as far as it keeps both busy at
// once. The first version (one tile of two float4 per thread, one block per tile, 32768 blocks)
// reached 77% of the copy ceiling with the SMs 86% busy (H200, ncu). The likely reason (not
// profiled for stall reasons): every block loaded, then computed, then stored, and the blocks
// resident on an SM, started together with equal work, run those phases roughly in step, so the
// schedulers idle while a wave's loads are in flight and HBM idles while the wave computes. This
// kernel overlaps them explicitly:
//   - persistent: one block per resident slot (the occupancy calculator's blocks per SM × SMs),
//     each walking tiles blockIdx.x, blockIdx.x + gridDim.x, ...; no block launches after the
//     first wave, and the tiles left over after the last full round are spread over the blocks
//     one each (32768 tiles over 1056 blocks on the H200: 31 or 32 tiles each);
//   - software-pipelined: a thread issues the loads of its next tile before it starts the 64
//     operations of the current one, so each tile's loads have a whole tile of arithmetic
//     (512 instructions per warp, 16 warps per scheduler) to arrive in, and HBM always has the
//     next tiles' reads queued while the schedulers issue the current tiles' arithmetic. Two
//     register buffers take the tiles in turn, so no copies are needed between tiles.
// Instructions: 64 FMUL/FADD per element (PTX: 256 mul.rn.f32 and 256 add.rn.f32 per tile of 8
// elements per thread, none folded: __fmul_rn/__fadd_rn forbid contraction and reassociation)
// plus ~11 per tile for the loads, stores, addresses and the loop, ~1.4 per element. ptxas:
// 30 registers (sm_90a), so 8 blocks of 256 per SM.
// Bytes: 512 MiB (x read, y written once); FLOPs: 64 · 2^26. Ceiling: HBM bandwidth.
#include <stdexcept>
#include <string>

#include "elementwise_chain_common.cuh"

namespace aisp::ch09 {
namespace {

using Problem = ElementwiseChainProblem;

// Tile t is the kVecsPerBlock float4 from t · kVecsPerBlock; thread i of a block owns float4
// i + u · kThreads of it (u < kVecsPerThread: each warp access is 512 contiguous bytes). The
// indices are 32-bit (2^24 float4, asserted below): one multiply-add and one wide multiply-add
// per tile for the loads and one more for the stores. Nothing is loaded past the last tile.
constexpr unsigned kTileVecs = static_cast<unsigned>(Problem::kVecsPerBlock);

__device__ __forceinline__ unsigned first_vec(unsigned tile) {
  return tile * kTileVecs + threadIdx.x;
}
__device__ __forceinline__ void load_tile(const float4* __restrict__ in, unsigned tile,
                                          unsigned tiles, float4 (&v)[Problem::kVecsPerThread]) {
  if (tile < tiles) {
    const float4* source = in + first_vec(tile);
#pragma unroll
    for (int u = 0; u < Problem::kVecsPerThread; ++u)
      v[u] = source[u * Problem::kThreads];
  }
}

// The 64 operations on one tile, in registers, and its store. 8 independent values per thread:
// enough independent work to cover the ~4-cycle latency of each dependent operation even with
// few warps resident.
__device__ __forceinline__ void apply_chain_and_store(float4 (&v)[Problem::kVecsPerThread],
                                                      float4* __restrict__ out, unsigned tile) {
#pragma unroll
  for (int op = 0; op < kChainOps; ++op) {
#pragma unroll
    for (int u = 0; u < Problem::kVecsPerThread; ++u) {
      v[u].x = apply_chain_op(v[u].x, op);
      v[u].y = apply_chain_op(v[u].y, op);
      v[u].z = apply_chain_op(v[u].z, op);
      v[u].w = apply_chain_op(v[u].w, op);
    }
  }
  float4* destination = out + first_vec(tile);
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerThread; ++u)
    destination[u * Problem::kThreads] = v[u];
}

// A block's tiles are blockIdx.x, blockIdx.x + gridDim.x, ...; the loads of each tile go out
// before the arithmetic of the tile before it. Two buffers, used in turn (the loop body handles
// two tiles), so a tile's registers are loaded only after its predecessor in them is consumed,
// and no register copies are needed between tiles.
__global__ void __launch_bounds__(Problem::kThreads)
    apply_chain_fused(const float4* __restrict__ in, float4* __restrict__ out, unsigned tiles) {
  float4 even[Problem::kVecsPerThread];
  float4 odd[Problem::kVecsPerThread];
  unsigned tile = blockIdx.x;
  load_tile(in, tile, tiles, even);
  while (tile < tiles) {
    const unsigned second = tile + gridDim.x;
    load_tile(in, second, tiles, odd);
    apply_chain_and_store(even, out, tile);
    if (second >= tiles)
      break;
    const unsigned third = second + gridDim.x;
    load_tile(in, third, tiles, even);
    apply_chain_and_store(odd, out, second);
    tile = third;
  }
}

constexpr unsigned kTiles = static_cast<unsigned>(Problem::kCount / 4 / Problem::kVecsPerBlock);
static_assert(std::size_t{kTiles} * Problem::kVecsPerBlock * 4 == Problem::kCount,
              "whole tiles only: the kernel has no partial tile");
static_assert(std::size_t{kTiles} * Problem::kVecsPerBlock < (std::size_t{1} << 32),
              "float4 indices fit in 32 bits");

}  // namespace

struct ElementwiseChainFusedBitIdentical : ElementwiseChainProblem {
  void setup(aisp::Context& ctx) override {
    ElementwiseChainProblem::setup(ctx);
    int blocks_per_sm = 0;
    AISP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, apply_chain_fused,
                                                                  kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error(
          "elementwise_chain_bit_identical: the occupancy calculator fits no block of " +
          std::to_string(kThreads) +
          " threads of apply_chain_fused on an SM; check its register use "
          "(nvcc -Xptxas -v)");
    const unsigned resident = static_cast<unsigned>(blocks_per_sm) *
                              static_cast<unsigned>(ctx.device_properties().multiProcessorCount);
    blocks_ = resident < kTiles ? resident : kTiles;
  }

  void run(aisp::Context& ctx) override {
    apply_chain_fused<<<blocks_, kThreads, 0, ctx.stream()>>>(x4(), y4(), kTiles);
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned blocks_ = 0;
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::ElementwiseChainFusedBitIdentical)
