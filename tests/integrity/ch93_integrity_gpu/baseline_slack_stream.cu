// Honest baseline for the 'slack_stream' pair.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_slack_stream : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_slack_stream)
