// Baseline: Horner's rule with one accumulator, p ← p · x + c_k from the top coefficient down.
// Every fused multiply-add needs the previous one's result, so a thread issues one FMA per FMA
// latency (about 4 cycles on Hopper). With one warp per scheduler there is no other warp to fill
// the three idle cycles: the scheduler issues an FMA about every fourth cycle, ~25% of the FP32
// rate, however the loop is unrolled.
// Bytes: 256 KiB (x, c read; y written); FLOPs: 2 · 32768 · 16384 = 1.07 GFLOP. Ceiling: FP32 SIMT.
#include "ilp_accumulators_common.cuh"

namespace aisp::ch08 {
namespace {

__global__ void __launch_bounds__(kHornerThreads, 1)
    horner_one_chain(const float* __restrict__ xs, const float4* __restrict__ c,
                     float* __restrict__ ys) {
  extern __shared__ float4 shared_c[];
  stage_coefficients(c, shared_c);
  const int point = static_cast<int>(blockIdx.x) * kHornerThreads + static_cast<int>(threadIdx.x);
  const float x = xs[point];

  float p = 0.0f;
#pragma unroll 4
  for (int j = kHornerSteps - 1; j >= 0; --j) {
    const float4 hi = shared_c[2 * j + 1];  // c[8j + 4 .. 8j + 7]
    const float4 lo = shared_c[2 * j];      // c[8j .. 8j + 3]
    p = fmaf(p, x, hi.w);
    p = fmaf(p, x, hi.z);
    p = fmaf(p, x, hi.y);
    p = fmaf(p, x, hi.x);
    p = fmaf(p, x, lo.w);
    p = fmaf(p, x, lo.z);
    p = fmaf(p, x, lo.y);
    p = fmaf(p, x, lo.x);
  }
  ys[point] = p;
}

}  // namespace

struct HornerOneChain : IlpAccumulatorsProblem {
  void setup(aisp::Context& ctx) override {
    IlpAccumulatorsProblem::setup(ctx);
    allow_shared_coefficients(horner_one_chain);
  }

  void run(aisp::Context& ctx) override {
    horner_one_chain<<<blocks(), kHornerThreads, kHornerSharedBytes, ctx.stream()>>>(x(), c(), y());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch08

AISP_VARIANT(aisp::ch08::HornerOneChain)
