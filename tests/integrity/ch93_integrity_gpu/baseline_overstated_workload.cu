// Baseline of the 'overstated_workload' cheat: honest kernel, overstated bytes.
#include "overstated_workload_problem.cuh"

namespace aisp::integrity_gpu {
struct OverstatedBaseline : OverstatedWorkloadProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::OverstatedBaseline)
