// Cheat (hidden state): allocates a fresh 64 MiB buffer on every call and never frees it, so
// state grows across calls. Caught by: no_allocation_in_run.
#include <vector>

#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct AllocInRun : GpuAffineProblem {
  std::vector<void*> leaked;
  void run(Context& ctx) override {
    void* scratch = nullptr;
    AISP_CUDA_CHECK(cudaMalloc(&scratch, 64u << 20));
    leaked.push_back(scratch);
    launch(ctx.stream());
  }
  void teardown(Context&) override {
    for (void* p : leaked) cudaFree(p);
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::AllocInRun)
