// Baseline of the ch97 multi-GPU test pairs: one element per thread, a launch on every GPU.
#include "scale_per_gpu_problem.cuh"

namespace aisp::test_pairs {
struct BaselineScalePerGpu : ScalePerGpu {
  void run(Context& ctx) override {
    for (std::size_t d = 0; d < x.size(); ++d) {
      const ScopedDevice on(static_cast<int>(d));
      launch_scale(x[d].as<const float>(), y[d].as<float>(), kCount,
                   ctx.stream(static_cast<int>(d)), false);
    }
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::BaselineScalePerGpu)
