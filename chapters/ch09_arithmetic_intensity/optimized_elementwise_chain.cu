// Optimized: the 64 operations fused into one kernel, each multiply and the add after it contracted
// into one FMA. What changed vs the baseline: each thread loads its float4s once, applies the chain
// in registers (fully unrolled, every constant an immediate operand) and stores once: 512 MiB of
// traffic instead of 32 GiB. Operations 2i and 2i + 1, t * scale(2i) + shift(2i + 1), are one
// fmaf(t, scale(2i), shift(2i + 1)), rounded once instead of twice.
// Why the contraction is allowed: it is the same chain, the same 32 multiplies and 32 adds per
// element (an FMA is both, so the 64 FLOPs per element the workload counts are all performed);
// only the rounding differs: 32 roundings instead of 64, each at most 2^-24 of the value it
// rounds (the product is exact inside the FMA), and the values between operations stay within a
// few percent of the input (the constants are 1 ± j·2^-10 and ±j·2^-8), so the error bound is
// ~32 · 2^-24 ≈ 1.9e-6 of the input's magnitude, half the separately rounded chain's: inside the
// default f32 tolerance (rtol 1e-5, atol 1e-6). A host check of 10^6 values per input range (float
// fma against float64) gave relative RMS errors of 1.30e-7 contracted, 1.32e-7 separately rounded
// on [-1, 1); 1.6e-7 both offset to [7, 9); 1.26e-7 both on the wide range (×2^±12); the largest
// |error| 0.74 of 1e-5 |reference| + 1e-8. It is what nvcc does to `t * a + b` by default
// (-fmad=true).
// The 64-kernel baseline cannot do it: its multiply and its add run in different kernels with a
// rounded store between them. So the outputs are no longer bit-identical to the baseline's;
// verification compares both with float64. optimized_elementwise_chain_bit_identical keeps every
// operation rounded on its own, for comparison.
// What limits it: 32 FFMA per element instead of 64 FMUL/FADD takes the kernel from the ridge to
// half of it. SASS (sm_90a, cubin opcode count): 576 instructions for the loop's two tiles of 8
// elements per thread, 512 of them FFMA: 36 per element with the prologue, against 1080 (67.5)
// for the bit-identical kernel. Issue at 36 per element: 2^26 · 36 / (132 SMs · 4 schedulers ·
// 1.98 GHz · 32 lanes) = 0.072 ms, against 0.126 ms for the 512 MiB at 4275 GB/s: bound by HBM,
// with the schedulers 57% busy at the copy ceiling and slack to cover load latency. (The
// bit-identical kernel at ~65.5 per element needs 0.131 ms of issue: it was issue-bound, SMs 87%
// busy, 0.78 of the ceiling, run 20261124-043220-5d25.)
// The grid and the pipeline are the bit-identical kernel's: persistent (one block per resident
// slot, tiles blockIdx.x, + gridDim.x, ...), each thread issuing the loads of its next tile of 2
// float4 before it starts on the current one. ptxas (sm_90a): 40 registers, 6 blocks of 256 per SM.
// Measured (NVIDIA H200, run 20261124-061451-0e01): 0.84 of hbm_bandwidth, no longer issue-bound
// (ncu: issue slots 52% busy, DRAM 78%), the warps waiting on their loads 13.6 of every 19.9
// cycles. A deeper tile (4 float4 per thread, 48 registers, 5 blocks per SM: 80 KiB of loads in
// flight per SM instead of 48) was slower: 0.82 (run 20261124-064421-3bfc; ncu 144 µs against
// 138, achieved occupancy 54% against 70%), so the tile stays at the problem's 2 float4.
// Bytes: 512 MiB (x read, y written once); FLOPs: 64 · 2^26 (32 FMAs of 2). Ceiling: HBM bandwidth.
#include <stdexcept>
#include <string>

#include "elementwise_chain_common.cuh"

namespace aisp::ch09 {
namespace {

using Problem = ElementwiseChainProblem;
static_assert(kChainOps % 2 == 0 && chain_op_multiplies(0) && !chain_op_multiplies(1),
              "the chain alternates multiply, add, starting with a multiply: pairs become FMAs");

constexpr unsigned kTileVecs = static_cast<unsigned>(Problem::kVecsPerBlock);

// Tile t is the kVecsPerBlock float4 from t · kVecsPerBlock; thread i owns float4 i + u · kThreads
// of it (each warp access 512 contiguous bytes). 32-bit indices (asserted below).
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

// Operations 2i and 2i + 1 on one value: one FMA, one rounding.
__device__ __forceinline__ float apply_chain_pair(float t, int i) {
  return fmaf(t, chain_scale(2 * i), chain_shift(2 * i + 1));
}

// The 32 FMAs on one tile's 8 values per thread (8 independent chains cover the FMA latency), and
// its store.
__device__ __forceinline__ void apply_chain_and_store(float4 (&v)[Problem::kVecsPerThread],
                                                      float4* __restrict__ out, unsigned tile) {
#pragma unroll
  for (int i = 0; i < kChainOps / 2; ++i) {
#pragma unroll
    for (int u = 0; u < Problem::kVecsPerThread; ++u) {
      v[u].x = apply_chain_pair(v[u].x, i);
      v[u].y = apply_chain_pair(v[u].y, i);
      v[u].z = apply_chain_pair(v[u].z, i);
      v[u].w = apply_chain_pair(v[u].w, i);
    }
  }
  float4* destination = out + first_vec(tile);
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerThread; ++u)
    destination[u * Problem::kThreads] = v[u];
}

// A block's tiles are blockIdx.x, blockIdx.x + gridDim.x, ...; each tile's loads go out before the
// arithmetic of the tile before it (two register buffers used in turn).
__global__ void __launch_bounds__(Problem::kThreads)
    apply_chain_fused_contracted(const float4* __restrict__ in, float4* __restrict__ out,
                                 unsigned tiles) {
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

struct ElementwiseChainFusedContracted : ElementwiseChainProblem {
  void setup(aisp::Context& ctx) override {
    ElementwiseChainProblem::setup(ctx);
    int blocks_per_sm = 0;
    AISP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, apply_chain_fused_contracted, kThreads, 0));
    if (blocks_per_sm < 1)
      throw std::runtime_error(
          "elementwise_chain: the occupancy calculator fits no block of " +
          std::to_string(kThreads) +
          " threads of apply_chain_fused_contracted on an SM; check its register "
          "use (nvcc -Xptxas -v)");
    const unsigned resident = static_cast<unsigned>(blocks_per_sm) *
                              static_cast<unsigned>(ctx.device_properties().multiProcessorCount);
    blocks_ = resident < kTiles ? resident : kTiles;
  }

  void run(aisp::Context& ctx) override {
    apply_chain_fused_contracted<<<blocks_, kThreads, 0, ctx.stream()>>>(x4(), y4(), kTiles);
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned blocks_ = 0;
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::ElementwiseChainFusedContracted)
