// Honest baseline for the 'persisting_l2' cheat.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_persisting_l2 : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_persisting_l2)
