// Cheat: half the elements on ctx.stream(), the other half on a private stream that is never
// joined back, followed there by ~30 us of spinning: the side work ends about 30 us after the
// stop event. Host time exceeds event time by less than work_inside_stream's allowance (10% of
// the median + 50 us), so that check passes; under CUPTI the call runs slower and the side work
// ends before the end marker, so the trace's timeline passes too. Caught by:
// traced_work_inside_stream's structural check (no event recorded on the side stream is waited
// on by ctx.stream(): the side kernels are never joined back, whenever they end).
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
namespace {

// Spins one thread for `ns` nanoseconds of the GPU's global timer.
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

struct SlackStream : GpuAffineProblem {
  static constexpr std::size_t kHalf = kCount / 2;
  cudaStream_t side = nullptr;
  void setup(Context& ctx) override {
    GpuAffineProblem::setup(ctx);
    AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  }
  void run(Context& ctx) override {
    affine_kernel<<<static_cast<unsigned>((kHalf + 255) / 256), 256, 0, side>>>(
        x.as<float>() + kHalf, y.as<float>() + kHalf, kCount - kHalf);
    AISP_CHECK_LAUNCH();
    spin_kernel<<<1, 1, 0, side>>>(30'000);
    AISP_CHECK_LAUNCH();
    affine_kernel<<<static_cast<unsigned>((kHalf + 255) / 256), 256, 0, ctx.stream()>>>(
        x.as<float>(), y.as<float>(), kHalf);
    AISP_CHECK_LAUNCH();
  }
  void teardown(Context&) override { cudaStreamDestroy(side); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::SlackStream)
