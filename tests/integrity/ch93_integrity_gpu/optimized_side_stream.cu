// Cheat: the kernel runs on a private non-blocking stream, invisible to the events on
// ctx.stream(); the device-wide synchronize still waits for it. Caught by: work_inside_stream
// (host time far above event time).
#include "integrity_gpu_problem.cuh"

namespace aisp::integrity_gpu {
struct SideStream : GpuAffineProblem {
  cudaStream_t side = nullptr;
  void setup(Context& ctx) override {
    GpuAffineProblem::setup(ctx);
    AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  }
  void run(Context&) override {
    for (int i = 0; i < 20; ++i) launch(side);  // same answer, 20× the hidden work
  }
  void teardown(Context&) override { cudaStreamDestroy(side); }
};
}  // namespace aisp::integrity_gpu
AISP_VARIANT(aisp::integrity_gpu::SideStream)
