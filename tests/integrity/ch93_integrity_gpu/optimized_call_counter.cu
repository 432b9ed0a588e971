// Cheat: counts its calls and launches the whole grid only for the first few (every call
// verification makes of an instance, and the timed instance's warm-up); after that, half the
// grid. Its timed samples do half the work. Caught by: timed_calls_checked (timed calls are
// compared with the baseline's on the same inputs; the call after the samples is a cheap one).
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct CallCounter : GpuAffineProblem {
  int calls = 0;
  void run(Context& ctx) override {
    const std::size_t n = ++calls <= 6 ? kCount : kCount / 2;
    affine_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, ctx.stream()>>>(
        x.as<float>(), y.as<float>(), n);
    AISP_CHECK_LAUNCH();
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::CallCounter)
