// Honest baseline for the 'alloc_in_run' cheat.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_alloc_in_run : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_alloc_in_run)
