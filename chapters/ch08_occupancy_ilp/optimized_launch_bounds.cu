// Optimized: the same kernel body with __launch_bounds__(256, 8): at most 256 threads per block,
// and at least 8 blocks resident per SM. What changed: nothing in the arithmetic; the compiler
// must now fit a thread in 65536 / (8 · 256) = 32 registers (it uses 32, -Xptxas -v, sm_90a, CUDA
// 13.0), so it moves the slow path's terms to local memory (a 416-byte stack frame; 616 bytes of
// spill stores and 616 of spill loads in the code, over the two inlined copies of the path),
// which is L1-cached and touched only by the ~1.6% of warps that take that path.
// Why it is faster: an SM now holds 8 blocks, 64 warps instead of 16, and so 4× the loads in
// flight (2048 threads × 8 B = 16 KiB per SM), close to what HBM latency needs. The fast path
// never touches the spilled terms, so it runs as before; the output is bit-identical.
// The trade is worth it here because the register-hungry code is rare; a kernel whose every
// element needed 120 live values would pay for the spills on every element.
// Bytes: 2^26 · 4 read + 2^26 · 4 written = 512 MiB; FLOPs: 22 per element (the fast path's 11
// FMAs). Ceiling: HBM bandwidth.
#include "launch_bounds_common.cuh"

namespace aisp::ch08 {
namespace {

constexpr int kMinBlocksPerSm = 8;  // 8 × 256 = 2048 threads: the SM's maximum on sm_90

__global__ void __launch_bounds__(LaunchBoundsProblem::kThreads, kMinBlocksPerSm)
    series_map_bounded(const float2* __restrict__ in, float2* __restrict__ out) {
  series_map_body(in, out);
}

}  // namespace

struct SeriesMapBounded : LaunchBoundsProblem {
  void run(aisp::Context& ctx) override {
    series_map_bounded<<<blocks(), kThreads, 0, ctx.stream()>>>(in(), out());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::SeriesMapBounded)
