// ch86:gpu_scale_per_element: one thread per element over the whole array; reports its fraction
// of the cuBLAS reference, timed in the same worker.
#include "gpu_scale_problem.cuh"

namespace aisp::test_pairs {
struct GpuScalePerElement : GpuScale {
  void run(Context& ctx) override {
    launch_scale_per_element(x.as<float>(), y.as<float>(), kCount, ctx.stream());
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::GpuScalePerElement)
