// Optimized variant of the 'gpu_marked' test pair: the same prefill and mark, and the 64 decode
// steps in one launch.
#include "gpu_marked_problem.cuh"

namespace aisp::test_pairs {
struct OptimizedGpuMarked : GpuMarkedProblem {
  void run(Context& ctx) override {
    prefill(ctx);
    ctx.mark("first_token");
    decode_steps(ctx, kDecodeSteps);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::OptimizedGpuMarked)
