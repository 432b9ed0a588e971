// Honest control: half the elements on a second stream, forked from ctx.stream() (an event it
// waits for) and joined back (ctx.stream() waits for an event recorded after its kernel), so all
// of run()'s work is ordered before the stop event. Must pass every check, the CUPTI trace
// (traced_work_inside_stream) included.
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct ForkJoin : GpuAffineProblem {
  static constexpr std::size_t kHalf = kCount / 2;
  cudaStream_t side = nullptr;
  cudaEvent_t forked = nullptr, joined = nullptr;
  void setup(Context& ctx) override {
    GpuAffineProblem::setup(ctx);
    AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    AISP_CUDA_CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    AISP_CUDA_CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
  }
  void run(Context& ctx) override {
    AISP_CUDA_CHECK(cudaEventRecord(forked, ctx.stream()));
    AISP_CUDA_CHECK(cudaStreamWaitEvent(side, forked, 0));
    affine_kernel<<<static_cast<unsigned>((kHalf + 255) / 256), 256, 0, side>>>(
        x.as<float>() + kHalf, y.as<float>() + kHalf, kCount - kHalf);
    AISP_CHECK_LAUNCH();
    AISP_CUDA_CHECK(cudaEventRecord(joined, side));
    affine_kernel<<<static_cast<unsigned>((kHalf + 255) / 256), 256, 0, ctx.stream()>>>(
        x.as<float>(), y.as<float>(), kHalf);
    AISP_CHECK_LAUNCH();
    AISP_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(), joined, 0));
  }
  void teardown(Context&) override {
    cudaEventDestroy(forked);
    cudaEventDestroy(joined);
    cudaStreamDestroy(side);
  }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::ForkJoin)
