// Honest baseline for the 'side_stream' cheat.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_side_stream : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_side_stream)
