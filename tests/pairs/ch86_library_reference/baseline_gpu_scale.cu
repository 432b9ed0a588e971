// Baseline of ch86:gpu_scale: an under-occupied grid-stride kernel (32 blocks of 128 threads).
#include "gpu_scale_problem.cuh"

namespace aisp::test_pairs {
struct GpuScaleGridStride : GpuScale {
  void run(Context& ctx) override {
    launch_scale_grid_stride(x.as<float>(), y.as<float>(), kCount, ctx.stream());
  }
};
}  // namespace aisp::test_pairs
AISP_VARIANT(aisp::test_pairs::GpuScaleGridStride)
