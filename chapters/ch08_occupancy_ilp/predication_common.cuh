// The problem both predication variants solve: a piecewise elementwise map over 2^26 elements,
//   y = x > 0 ? above(x, a) : below(x, b),
// where each side has its own per-element coefficient array (a for the upper piece, b for the
// lower one). x, a, b are uniform in [-1, 1): the threshold splits every warp's lanes about
// 50/50 at random, so nearly every warp has lanes on both sides, and nearly every 32-byte sector
// of a and of b holds a lane that needs it (all but 2^-8 of them): the two sides together read
// all of a and b whichever way the kernel is written. One element per thread, 256 threads per
// block, full occupancy (a few registers). The two pieces are written once, here; the variants
// differ only in branching on the threshold or selecting after computing both.
// Bytes: 3 · 2^26 · 4 read + 2^26 · 4 written = 1 GiB. FLOPs: 3 per element (one FMA and one
// multiply, on the side a lane keeps; the select form computes both). Ceiling: HBM bandwidth.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch08 {

namespace {

constexpr float kPredicationThreshold = 0.0f;

// Two pieces of different shape, so the compiler cannot merge the two sides of the branch into one
// instruction sequence on a selected pointer.
__device__ __forceinline__ float piece_above(float x, float a) { return fmaf(a, x, 1.0f) * x; }
__device__ __forceinline__ float piece_below(float x, float b) { return fmaf(b, b, x) * 0.5f; }

}  // namespace

class PredicationProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 26;
  static constexpr int kThreads = 256;
  static_assert(kCount % kThreads == 0, "whole blocks only");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount)
        .set("dtype", aisp::DType::f32)
        .set("threshold", static_cast<double>(kPredicationThreshold));
    return s;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    a_ = ctx.alloc("a", aisp::DType::f32, kCount, aisp::Role::input);
    b_ = ctx.alloc("b", aisp::DType::f32, kCount, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(x_);
    ctx.fill_uniform(a_);
    ctx.fill_uniform(b_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 4.0 * static_cast<double>(kCount) * sizeof(float);  // x, a, b read; y written
    w.flops = 3.0 * static_cast<double>(kCount);                  // one FMA and one multiply
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* x() const { return x_.as<const float>(); }
  const float* a() const { return a_.as<const float>(); }
  const float* b() const { return b_.as<const float>(); }
  float* y() const { return y_.as<float>(); }
  static constexpr unsigned blocks() { return static_cast<unsigned>(kCount / kThreads); }

 private:
  aisp::Tensor x_, a_, b_, y_;
};

}  // namespace aisp::ch08
