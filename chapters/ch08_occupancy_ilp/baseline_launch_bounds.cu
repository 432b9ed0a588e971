// Baseline: the series map compiled with no launch bounds. The compiler sizes the kernel for its
// hungriest path, the rare slow path that keeps 120 terms live: 124 registers per thread (-Xptxas
// -v, sm_90a, CUDA 13.0), so an SM's 64K registers hold 2 blocks of 256 threads, 16 of its 64
// warps. Each thread has one 8-byte load in flight, so an SM keeps 512 × 8 B = 4 KiB of loads
// outstanding, a fifth of what HBM needs (~4.3 TB/s × several hundred ns ÷ 132 SMs ≈ 20 KiB per
// SM, by Little's law), while the fast path that nearly every element takes needs only a handful
// of registers.
// Bytes: 2^26 · 4 read + 2^26 · 4 written = 512 MiB; FLOPs: 22 per element (the fast path's 11
// FMAs). Ceiling: HBM bandwidth.
#include "launch_bounds_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void series_map_unbounded(const float2* __restrict__ in, float2* __restrict__ out) {
  series_map_body(in, out);
}

}  // namespace

struct SeriesMapUnbounded : LaunchBoundsProblem {
  void run(aisp::Context& ctx) override {
    series_map_unbounded<<<blocks(), kThreads, 0, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::SeriesMapUnbounded)
