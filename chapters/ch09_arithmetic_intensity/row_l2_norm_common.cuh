// The problem both row_l2_norm variants solve: normalize each row of an 8192 × 8192 fp32 matrix
// (256 MiB in, 256 MiB out, row-major) to unit L2 norm, y[r][c] = x[r][c] / max(||x[r]||, eps)
// with eps = 1e-12 (the formula of torch.nn.functional.normalize).
//
// The cap of fusing it. As four kernels (square, row sum, inverse norm, scale) the matrix crosses
// HBM five times: x read and x² written, x² read, x read and y written; 5 × 256 MiB plus two
// vectors of 8192 floats. Fused, one block holds a row in registers: x read once, y written
// once, 2 × 256 MiB. If both ran at the copy bandwidth the speedup would be 5/2 = 2.5×: the cap.
//
// Also here: the block sum both variants use, so the row sum is taken in the same order by the
// fused kernel and by the baseline's row-sum kernel.
#pragma once

#include <aisp/aisp.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch09 {

namespace {

// Sum over the 32 lanes of a warp, the total in every lane.
__device__ __forceinline__ float warp_sum_all(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over a block of kThreads threads, the total in every thread (each adds the warp totals in
// the same order). Every thread must call it, at most once per kernel (one shared array).
template <int kThreads>
__device__ __forceinline__ float block_sum_all(float v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 32 of them");
  constexpr int kWarps = kThreads / 32;
  __shared__ float warp_totals[kWarps];
  v = warp_sum_all(v);
  if (threadIdx.x % 32 == 0)
    warp_totals[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w)
    total += warp_totals[w];
  return total;
}

}  // namespace

class RowL2NormProblem : public aisp::Benchmark {
 public:
  static constexpr int kRows = 8192;
  static constexpr int kCols = 8192;
  static constexpr std::size_t kCount = std::size_t{kRows} * kCols;
  static constexpr float kEps = 1e-12f;
  // One block per row in the row-wise kernels: 256 threads, 8 float4 each (a 32 KiB row).
  static constexpr int kRowThreads = 256;
  static constexpr int kVecsPerRowThread = kCols / 4 / kRowThreads;
  static_assert(kCols % (4 * kRowThreads) == 0, "a row is whole float4 per thread");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("rows", kRows).set("cols", kCols).set("dtype", aisp::DType::f32);
    s.set("op", "y = x / max(||x_row||_2, 1e-12)");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(x_);
    if (reinterpret_cast<std::uintptr_t>(x_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(y_.data()) % 16 != 0)
      throw std::invalid_argument("row_l2_norm: x and y must be 16-byte aligned (float4)");
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  // The row's norm in float64 (8192 terms per sampled element: cheap).
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const auto x = in.f32("x");
      const std::size_t row_start = index / kCols * kCols;
      double sum_squares = 0;
      for (std::size_t c = 0; c < kCols; ++c) {
        const double v = x[row_start + c];
        sum_squares += v * v;
      }
      return static_cast<double>(x[index]) / std::fmax(std::sqrt(sum_squares), double{kEps});
    };
  }

  // Both variants compute y = x · (1 / max(sqrt(s), eps)) in fp32 with the same block sum; they
  // differ only in whether x² is rounded to fp32 before it is added (the fused kernel uses an
  // FMA). That moves s by a few ulps at most, well inside the f32 default (rtol 1e-5).

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // x read once, y written once
    w.flops = 3.0 * static_cast<double>(kCount);                  // square, add, scale per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float4* x4() const { return x_.as<const float4>(); }
  float4* y4() const { return y_.as<float4>(); }

 private:
  aisp::Tensor x_, y_;
};

}  // namespace aisp::ch09
