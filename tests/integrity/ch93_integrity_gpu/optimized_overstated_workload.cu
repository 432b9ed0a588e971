// Cheat: claims 100× the bytes it moves, so its "bandwidth" beats the hardware. Caught by:
// within_roofline (the measured time is below the floor the ceilings allow).
#include "overstated_workload_problem.cuh"

namespace aisp::integrity_gpu {
struct OverstatedOptimized : OverstatedWorkloadProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::OverstatedOptimized)
