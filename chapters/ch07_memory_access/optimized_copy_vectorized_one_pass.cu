// Optimized (step 2): float4 copy with no grid-stride loop: one thread per float4, one pass,
// 2^26 / 256 = 262144 blocks. What changed vs optimized_copy_vectorized: the grid covers the
// buffer once and the hardware block scheduler replaces each finished block with the next one in
// order, instead of 4 resident blocks per SM each looping over the whole buffer.
// Why it is faster: not bytes in flight (2048 threads × 16 B = 32 KiB per SM here, about what
// the grid-stride version keeps) but, as far as we can tell without counters, where they are: the
// blocks in flight at any moment cover one compact, advancing window of the buffer, while the
// blocks of a persistent grid-stride loop drift apart over ~1000 iterations and spread their
// accesses over more DRAM rows. Measured in one exploratory H200 run, outside the harness: this
// version copies at the cudaMemcpy rate (~4.27 TB/s), the grid-stride version at ~94% of it,
// and giving each block a contiguous range instead (the far end of the same axis) at ~73%.
// Bytes: 2 GiB (1 GiB read + 1 GiB written); 0 FLOPs. Ceiling: HBM bandwidth.
#include "copy_vectorized_common.cuh"

namespace aisp::ch07 {
namespace {

__global__ void copy_float4_one_pass(const float* __restrict__ in, float* __restrict__ out,
                                     std::size_t count) {
  const std::size_t count4 = count / 4;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count4)
    reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
  // The last count % 4 floats (none for 2^28), one per thread.
  if (const std::size_t tail = 4 * count4 + i; tail < count)
    out[tail] = in[tail];
}

}  // namespace

struct CopyFloat4OnePass : VectorizedCopyProblem {
  void run(aisp::Context& ctx) override {
    const auto blocks = static_cast<unsigned>((kCount / 4 + kThreads - 1) / kThreads);
    copy_float4_one_pass<<<blocks, kThreads, 0, ctx.stream()>>>(in(), out(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::CopyFloat4OnePass)
