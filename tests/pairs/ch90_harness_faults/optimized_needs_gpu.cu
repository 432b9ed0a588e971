// The same kernel as the baseline: an honest no-op optimization for the GPU test pair.
#include "gpu_affine_problem.cuh"

namespace aisp::test_pairs {
struct GpuAffineOptimized : GpuAffine<std::size_t{1} << 20> {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::GpuAffineOptimized)
