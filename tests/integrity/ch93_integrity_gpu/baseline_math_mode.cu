// Honest baseline for the 'math_mode' cheat.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_math_mode : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_math_mode)
