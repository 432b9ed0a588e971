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
// half of it. SASS (sm_90a, cubin opcode count, counted on the first, persistent version of this
// kernel): 576 instructions for the loop's two tiles of 8 elements per thread, 512 of them FFMA: 36 per element with the prologue, against 1080 (67.5)
// for the bit-identical kernel. Issue at 36 per element: 2^26 · 36 / (132 SMs · 4 schedulers ·
// 1.98 GHz · 32 lanes) = 0.072 ms, against 0.126 ms for the 512 MiB at 4275 GB/s: bound by HBM,
// with the schedulers 57% busy at the copy ceiling and slack to cover load latency. (The
// bit-identical kernel at ~65.5 per element needs 0.131 ms of issue: it was issue-bound, SMs 87%
// busy, 0.78 of the ceiling, run 20261124-043220-5d25.)
// The grid: one tile per block (2^26 / 4 / 512 = 32768 blocks of 256 threads, 2 float4 per
// thread), the shape of the baseline's single-operation kernels. The first version kept the
// bit-identical kernel's persistent grid (one block per resident slot, each thread loading its
// next tile before working on the current one): 0.84 of hbm_bandwidth (run
// 20261124-061451-0e01), its warps waiting on their loads 13.6 of every 19.9 cycles; a deeper
// tile (4 float4 per thread) was slower, 0.82 (run 20261124-064421-3bfc). With one tile per block
// the hardware keeps every slot filled with fresh blocks whose loads are all in flight at once,
// and a block's store no longer waits behind its next tile's loads: 138 µs, 0.91 of
// hbm_bandwidth, against 150 µs (0.84) for the persistent kernel and 150 µs (0.83) for one tile
// per block with evict-first hints (__ldcs/__stcs) in the same run (NVIDIA H200, run
// 20261124-073541-5d14).
// Bytes: 512 MiB (x read, y written once); FLOPs: 64 · 2^26 (32 FMAs of 2). Ceiling: HBM bandwidth.
#include "elementwise_chain_common.cuh"

namespace aisp::ch09 {
namespace {

using Problem = ElementwiseChainProblem;
static_assert(kChainOps % 2 == 0 && chain_op_multiplies(0) && !chain_op_multiplies(1),
              "the chain alternates multiply, add, starting with a multiply: pairs become FMAs");

// Operations 2i and 2i + 1 on one value: one FMA, one rounding.
__device__ __forceinline__ float apply_chain_pair(float t, int i) {
  return fmaf(t, chain_scale(2 * i), chain_shift(2 * i + 1));
}

// Thread i of block b owns float4 b · kVecsPerBlock + i + u · kThreads (each warp access 512
// contiguous bytes); the 32 FMAs on its 8 values (8 independent chains cover the FMA latency).
__global__ void __launch_bounds__(Problem::kThreads)
    apply_chain_fused_contracted(const float4* __restrict__ in, float4* __restrict__ out) {
  const std::size_t first = std::size_t{blockIdx.x} * Problem::kVecsPerBlock + threadIdx.x;
  float4 v[Problem::kVecsPerThread];
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerThread; ++u)
    v[u] = in[first + u * Problem::kThreads];
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
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerThread; ++u)
    out[first + u * Problem::kThreads] = v[u];
}

}  // namespace

struct ElementwiseChainFusedContracted : ElementwiseChainProblem {
  void run(aisp::Context& ctx) override {
    apply_chain_fused_contracted<<<kBlocks, kThreads, 0, ctx.stream()>>>(x4(), y4());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::ElementwiseChainFusedContracted)
