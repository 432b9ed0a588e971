// Cheat: the same kernel as the baseline, but asking to be timed by graph replay while the
// baseline is timed per call: launch overhead counts for one and not the other, and the same
// work reports a speedup. Caught by: timing_methods_equal (no timing_asymmetry_justification).
#include "gpu_affine_problem.cuh"  // tests/support

namespace aisp::integrity_gpu {
struct GraphAsymmetry : test_pairs::GpuAffine<std::size_t{1} << 16, TimingMode::graph> {
  void run(Context& ctx) override { launch(ctx.stream()); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::GraphAsymmetry)
