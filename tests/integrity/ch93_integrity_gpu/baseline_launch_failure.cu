// Honest baseline for the 'launch_failure' cheat.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_launch_failure : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_launch_failure)
