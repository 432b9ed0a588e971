// Baseline: the textbook shared-memory tree, one element per thread. A block of 256 threads loads
// 256 floats into shared memory, then halves them 8 times (sequential addressing: thread t adds
// element t + s to element t, s = 128, 64, ..., 1, a barrier after each step) and writes one
// partial. The same kernel then reduces the partials: 2^28 → 2^20 → 4096 → 16 → 1, four launches.
// Where the time goes: a thread issues one 4-byte load, at its block's start, and then nothing
// but barriers and shared-memory traffic, so an SM holds at most 2048 × 4 B = 8 KiB of loads in
// flight (under the ~20 KiB HBM needs by Little's law), and less while its blocks sit in their
// 8 barrier steps, where half the threads idle after the first step and all but one after the
// last. The later passes read 4 MiB more and cost three more launches (a few µs).
// Bytes: 2^28 · 4 = 1 GiB read; FLOPs: 2^28 adds. Ceiling: HBM bandwidth (read).
#include "reduction_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void __launch_bounds__(kReduceThreads)
    reduce_tree_pass(const float* __restrict__ in, float* __restrict__ out, std::size_t count) {
  __shared__ float values[kReduceThreads];
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kReduceThreads + t;
  values[t] = i < count ? in[i] : 0.0f;
  __syncthreads();
  for (int s = kReduceThreads / 2; s > 0; s >>= 1) {
    if (t < s)
      values[t] += values[t + s];
    __syncthreads();  // outside the branch: every thread reaches every barrier
  }
  if (t == 0)
    out[blockIdx.x] = values[0];
}

}  // namespace

struct ReduceTree : MultiPassReduction<kReduceThreads> {
 protected:
  void launch_pass(const float* src, float* dst, std::size_t count, unsigned blocks,
                   cudaStream_t stream) override {
    reduce_tree_pass<<<blocks, kReduceThreads, 0, stream>>>(src, dst, count);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::ReduceTree)
