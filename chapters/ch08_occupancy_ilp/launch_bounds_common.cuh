// The problem both launch_bounds variants solve: y = f(x) elementwise over 2^26 floats (256 MiB in,
// 256 MiB out), one float2 per thread. f is a power series, here the exponential's, standing in
// for a special function with no library routine, evaluated two ways:
//   - the fast path, for inputs in the nominal range |x| <= 1: 12 terms by Horner's rule, a few
//     registers;
//   - the slow path, for inputs outside it: 120 terms, each computed from the one before, then
//     summed smallest first (the usual way to keep rounding small), so all 120 terms sit in
//     registers until the sum starts.
// Inputs are uniform in ±(1 + 2^-12): about 1 in 4100 takes the slow path, so about 1.6% of warps
// (64 elements each) run it at all. The slow path costs almost nothing in time, but the compiler
// gives the whole kernel the registers that path needs. That register count, not the work, decides
// how many warps an SM holds while the fast path waits on memory.
//
// The kernel body is written once here; the two variants wrap it in a kernel with and without
// __launch_bounds__, so the arithmetic, and so the output, is bit-identical.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch08 {

namespace {

constexpr int kSeriesFastTerms = 12;   // 1/12! ≈ 2e-9: below fp32 resolution for |x| <= 1
constexpr int kSeriesSlowTerms = 120;  // enough for |x| up to ~50
constexpr float kSeriesRange = 1.0f;

// 1/k! for the fast path's Horner coefficients, folded to constants at compile time.
__host__ __device__ constexpr float inverse_factorial(int k) {
  double f = 1.0;
  for (int i = 2; i <= k; ++i)
    f *= i;
  return static_cast<float>(1.0 / f);
}

__device__ __forceinline__ float series_fast(float x) {
  float p = inverse_factorial(kSeriesFastTerms - 1);
#pragma unroll
  for (int k = kSeriesFastTerms - 2; k >= 0; --k)
    p = fmaf(p, x, inverse_factorial(k));
  return p;
}

// Terms x^k / k! from the recurrence t_k = t_(k-1) · x / k, summed from the last (smallest) to
// the first. Every term is live until the sum reaches it: ~120 registers.
__device__ __forceinline__ float series_slow(float x) {
  float term[kSeriesSlowTerms];
  term[0] = 1.0f;
#pragma unroll
  for (int k = 1; k < kSeriesSlowTerms; ++k)
    term[k] = term[k - 1] * (x * (1.0f / static_cast<float>(k)));
  float sum = 0.0f;
#pragma unroll
  for (int k = kSeriesSlowTerms - 1; k >= 0; --k)
    sum += term[k];
  return sum;
}

__device__ __forceinline__ float series(float x) {
  return fabsf(x) <= kSeriesRange ? series_fast(x) : series_slow(x);
}

// One float2 per thread (8 bytes in flight), one pass over the buffer: element pair i =
// blockIdx.x · blockDim.x + threadIdx.x. The count is a multiple of the block's 512 floats
// (checked at compile time).
__device__ __forceinline__ void series_map_body(const float2* __restrict__ in,
                                                float2* __restrict__ out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float2 v = in[i];
  v.x = series(v.x);
  v.y = series(v.y);
  out[i] = v;
}

}  // namespace

class LaunchBoundsProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 26;
  static constexpr int kThreads = 256;
  static_assert(kCount % (2 * kThreads) == 0, "one float2 per thread, no tail handling");
  // Inputs in ±(1 + 2^-12): the fraction outside [-1, 1] is 2^-12 / (1 + 2^-12) ≈ 1 / 4097.
  static constexpr double kInputBound = 1.0 + 1.0 / 4096.0;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount)
        .set("dtype", aisp::DType::f32)
        .set("fast_terms", kSeriesFastTerms)
        .set("slow_terms", kSeriesSlowTerms)
        .set("input_bound", kInputBound);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    in_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    out_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(in_, -kInputBound, kInputBound);
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 8 != 0 ||
        reinterpret_cast<std::uintptr_t>(out_.data()) % 8 != 0)
      throw std::invalid_argument("launch_bounds: x and y must be 8-byte aligned for float2");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // x read once, y written once
    // The fast path's 11 FMAs per element; the slow path (~1 element in 4100) is not counted.
    w.flops = 2.0 * (kSeriesFastTerms - 1) * static_cast<double>(kCount);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float2* in() const { return in_.as<const float2>(); }
  float2* out() const { return out_.as<float2>(); }
  static constexpr unsigned blocks() { return static_cast<unsigned>(kCount / 2 / kThreads); }

 private:
  aisp::Tensor in_, out_;
};

}  // namespace aisp::ch08
