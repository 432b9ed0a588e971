// Baseline: host→device copy of 256 MiB from pageable (malloc'd) memory. The GPU's copy engines
// can only read page-locked memory, so the driver copies the data chunk by chunk into a pinned
// staging buffer with the CPU and DMAs each chunk from there: two copies, partly serialized, and
// the call returns only when the last chunk has been staged.
// Bytes: 256 MiB over PCIe; 0 FLOPs. Ceiling: pinned host→device bandwidth.
#include "h2d_copy_common.cuh"

namespace aisp::ch01 {

struct H2dCopyPageable : H2dCopyProblem {
  H2dCopyPageable() : H2dCopyProblem(aisp::Memory::host) {}

  void run(aisp::Context& ctx) override {
    AISP_CUDA_CHECK(
        cudaMemcpyAsync(destination(), source(), kBytes, cudaMemcpyHostToDevice, ctx.stream()));
  }
};

}  // namespace aisp::ch01

AISP_VARIANT(aisp::ch01::H2dCopyPageable)
