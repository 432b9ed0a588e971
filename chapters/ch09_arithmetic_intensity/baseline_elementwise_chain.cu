// Baseline: the 64 operations as 64 kernels, one operation each, the way an eager framework runs
// `t = t * a; t = t + b; ...`. Each kernel is a good memory-bound kernel (float4, one pass, two
// loads in flight per thread, the shape chapter 7 found at the copy ceiling); what it cannot
// avoid is moving the whole array for one FLOP per element. Kernel 0 reads x and writes y; the
// other 63 read y and write it back in place. 64 × (256 MiB read + 256 MiB written) = 32 GiB.
// Bytes (declared, the problem's minimum): 512 MiB; moved: 32 GiB. FLOPs: 64 · 2^26.
// Ceiling: HBM bandwidth.
#include "elementwise_chain_common.cuh"

namespace aisp::ch09 {
namespace {

using Problem = ElementwiseChainProblem;

__global__ void __launch_bounds__(Problem::kThreads)
    apply_one_chain_op(const float4* __restrict__ in, float4* out, int op) {
  // `in` and `out` are the same buffer for operations 1..63: no __restrict__ on `out`, and each
  // thread reads its elements before it writes them.
  const std::size_t base = blockIdx.x * Problem::kVecsPerBlock + threadIdx.x;
  float4 v[Problem::kVecsPerThread];
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerThread; ++u)
    v[u] = in[base + u * Problem::kThreads];
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerThread; ++u) {
    v[u].x = apply_chain_op(v[u].x, op);
    v[u].y = apply_chain_op(v[u].y, op);
    v[u].z = apply_chain_op(v[u].z, op);
    v[u].w = apply_chain_op(v[u].w, op);
    out[base + u * Problem::kThreads] = v[u];
  }
}

}  // namespace

struct ElementwiseChain64Kernels : ElementwiseChainProblem {
  void run(aisp::Context& ctx) override {
    for (int op = 0; op < kChainOps; ++op) {
      const float4* source = op == 0 ? x4() : y4();
      apply_one_chain_op<<<kBlocks, kThreads, 0, ctx.stream()>>>(source, y4(), op);
      AISP_CHECK_LAUNCH();
    }
  }
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::ElementwiseChain64Kernels)
