// Baseline of the 'graph_asymmetry' cheat: a 2 us kernel (2^16 floats), timed call by call, so
// each sample pays the launch overhead.
#include "gpu_affine_problem.cuh"  // tests/support

namespace aisp::integrity_gpu {
struct Baseline_graph_asymmetry : test_pairs::GpuAffine<std::size_t{1} << 16, TimingMode::direct> {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::Baseline_graph_asymmetry)
