// Honest baseline for the 'call_counter' pair.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct Baseline_call_counter : GpuAffineProblem {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_call_counter)
