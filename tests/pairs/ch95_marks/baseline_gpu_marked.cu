// Baseline of the 'gpu_marked' test pair (GPU): a toy generation on the device. "Prefill": y =
// 2x + 1 over 16M floats, then ctx.mark("first_token"); "decode": 64 launches of a kernel that
// rewrites y unchanged (y * 1 + 0). The mark must land between the two on the stream's clock.
#include "gpu_marked_problem.cuh"

namespace aisp::test_pairs {
struct BaselineGpuMarked : GpuMarkedProblem {
  void run(Context& ctx) override {
    prefill(ctx);
    ctx.mark("first_token");
    for (int step = 0; step < kDecodeSteps; ++step) decode_steps(ctx, 1);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::BaselineGpuMarked)
