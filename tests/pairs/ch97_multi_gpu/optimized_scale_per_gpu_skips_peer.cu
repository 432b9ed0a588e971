// A cheat: computes GPU 0's output only and never touches the other GPUs'. Verification must
// fail it: their outputs keep the poison it wrote before run().
#include "scale_per_gpu_problem.cuh"

namespace aisp::test_pairs {
struct SkipsPeerScalePerGpu : ScalePerGpu {
  void run(Context& ctx) override {
    launch_scale(x[0].as<const float>(), y[0].as<float>(), kCount, ctx.stream(0), true);
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::SkipsPeerScalePerGpu)
