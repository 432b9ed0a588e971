// Cheat (or bug): asks for more dynamic shared memory than any block may have and never checks
// the launch, so nothing runs and a timer would see a no-op. Caught by: the harness's own
// cudaGetLastError after run() — the pair fails with the launch error.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct LaunchFailure : GpuAffineProblem {
  void run(Context& ctx) override {
    affine_kernel<<<static_cast<unsigned>((kCount + 255) / 256), 256, 1u << 30, ctx.stream()>>>(
        x.as<float>(), y.as<float>(), kCount);  // no AISP_CHECK_LAUNCH(), on purpose
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::LaunchFailure)
