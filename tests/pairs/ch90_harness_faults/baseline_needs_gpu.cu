// A GPU pair in the test suite: on a machine without a GPU it must be skipped with a reason; on
// the GPU machine it must pass. y = 2x + 1 on the device (tests/support/gpu_affine_problem.cuh).
#include "gpu_affine_problem.cuh"

namespace aisp::test_pairs {
struct GpuAffineBaseline : GpuAffine<std::size_t{1} << 20> {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::GpuAffineBaseline)
