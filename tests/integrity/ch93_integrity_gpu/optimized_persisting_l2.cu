// Cheat: pins its input in L2 with a persisting access-policy window and leaves it set, so the
// next sample finds the data warm. Caught by: no_persisting_l2_state (and reset every sample).
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct PersistingL2 : GpuAffineProblem {
  void run(Context& ctx) override {
    AISP_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 16u << 20));
    cudaStreamAttrValue window{};
    window.accessPolicyWindow.base_ptr = x.data();
    window.accessPolicyWindow.num_bytes = 16u << 20;
    window.accessPolicyWindow.hitRatio = 1.0f;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    AISP_CUDA_CHECK(cudaStreamSetAttribute(ctx.stream(), cudaStreamAttributeAccessPolicyWindow, &window));
    launch(ctx.stream());
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::PersistingL2)
