// Honest baseline for the 'fork_join' pair.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_fork_join : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_fork_join)
