// Rung 2 of the reduction ladder. The one idea: load 16 bytes per thread instead of 4. What
// changed from optimized_reduction_shuffle: each thread loads one float4 (4 consecutive floats,
// one 16-byte load) and adds its 4 lanes before the same warp-shuffle block sum, so a block of 256
// threads covers 1024 floats and an SM holds 4× the bytes in flight for the same occupancy. The
// same kernel reduces the partials, now 2^28 → 2^18 → 256 → 1: three launches.
// What it shows: chapter 7's float4 copy against its scalar copy, for a read-only stream: bytes
// in flight per SM, not instructions, bound the scalar rungs.
// Accumulation: fp32; each thread adds its 4 floats pairwise, then the block tree: ~28 adds deep.
// Bytes: 2^28 · 4 = 1 GiB read; FLOPs: 2^28 adds. Ceiling: HBM bandwidth (read).
#include "reduction_common.cuh"

namespace aisp::ch08 {
namespace {

constexpr std::size_t kFloatsPerBlock = std::size_t{kReduceThreads} * 4;

__global__ void __launch_bounds__(kReduceThreads)
    reduce_vec4_pass(const float4* __restrict__ in, float* __restrict__ out, std::size_t count4) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kReduceThreads + threadIdx.x;
  float thread_total = 0.0f;
  if (i < count4) {
    const float4 v = in[i];
    thread_total = (v.x + v.y) + (v.z + v.w);
  }
  const float total = block_sum<float, kReduceThreads>(thread_total);
  if (threadIdx.x == 0)
    out[blockIdx.x] = total;
}

using Vec4Passes = MultiPassReduction<kFloatsPerBlock>;

// Every level this kernel reads must be whole float4s: 2^28, 2^18 and 256 floats are. (Each level
// then also starts 16-byte aligned in the partials buffer.)
constexpr bool levels_are_whole_float4s(std::size_t count) {
  for (; count > 1; count = Vec4Passes::pass_blocks(count))
    if (count % 4 != 0)
      return false;
  return true;
}
static_assert(levels_are_whole_float4s(ReductionProblem::kCount),
              "reduce_vec4_pass has no scalar tail: every level must be a multiple of 4 floats");

}  // namespace

struct ReduceVec4 : Vec4Passes {
 protected:
  void launch_pass(const float* src, float* dst, std::size_t count, unsigned blocks,
                   cudaStream_t stream) override {
    reduce_vec4_pass<<<blocks, kReduceThreads, 0, stream>>>(reinterpret_cast<const float4*>(src),
                                                             dst, count / 4);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceVec4)
