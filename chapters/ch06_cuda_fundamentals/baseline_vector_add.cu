// Baseline: the whole vector add on one GPU thread, <<<1, 1>>>, a plain loop over the 2^19
// elements. One thread uses one lane of one warp scheduler of one SM out of 132: it can keep only
// the few loads that the compiler's unrolling puts ahead of their use in flight, so nearly every
// new 32-byte sector of a and b costs a full trip to HBM (several hundred ns) with nothing to
// overlap it. The GPU's bandwidth comes from tens of thousands of threads keeping loads in
// flight together; this is the CPU habit of a single loop, carried over.
// Bytes: 3·n·4 = 6 MiB; n FLOPs. Ceiling: HBM bandwidth (this variant reaches a tiny fraction).
#include "vector_add_common.cuh"

namespace aisp::ch06 {
namespace {

__global__ void vector_add_one_thread(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    c[i] = a[i] + b[i];
}

}  // namespace

struct VectorAddOneThread : VectorAddProblem {
  void run(aisp::Context& ctx) override {
    vector_add_one_thread<<<1, 1, 0, ctx.stream()>>>(a(), b(), c(), kCount);
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::VectorAddOneThread)
