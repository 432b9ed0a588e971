// The rmsnorm_storage pair: RMSNorm of a transformer's residual stream (16384 tokens × hidden 8192,
// eps 1e-5, output in bf16 for the next GEMM), with the stream stored in fp32 (baseline: many
// training and some inference stacks keep the residual in fp32) or in bf16 (optimized). Compute
// is fp32 in both. The question it answers: the input bytes halve (4 -> 2 per element; 6 -> 4 with
// the output): does the time follow?
// The problem's values: x uniform in [-1, 1), gamma uniform in [0.5, 1.5) (ctx.fill_uniform with
// the same names: the bf16 variant holds the same numbers rounded to bf16, so storing them in
// bf16 loses precision: the optimized variant declares it, Benchmark::lower_precision). The
// signature leaves the storage out on purpose: it is what the variants differ in, and the
// contract compares outputs of one dtype (bf16 here), so only the input's storage can change.
// Work: ~4 FLOPs per element. Bytes: the fewest the problem must move, with bf16 storage:
// 2 (x) + 2 (y) per element + gamma; the fp32 baseline moves 6 per element, so its roofline
// fraction can reach at most 2/3. Ceiling: HBM bandwidth.
#pragma once

#include <aisp/aisp.hpp>
#include <cuda_bf16.h>

#include <cmath>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rmsnorm_storage_kernel.cuh"

namespace aisp::ch19 {

template <aisp::DType kStorage>
class RmsNormStorage : public aisp::Benchmark {
  static_assert(kStorage == aisp::DType::f32 || kStorage == aisp::DType::bf16,
                "fp32 or bf16 storage");

 public:
  static constexpr int kTokens = 16384;
  static constexpr int kHidden = 8192;
  static constexpr float kEps = 1e-5f;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("tokens", kTokens).set("hidden", kHidden).set("eps", static_cast<double>(kEps));
    s.set("x", "uniform[-1,1)").set("gamma", "uniform[0.5,1.5)").set("output", aisp::DType::bf16);
    return s;
  }

  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 80;
    return r;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", kStorage, static_cast<std::size_t>(kTokens) * kHidden, aisp::Role::input);
    gamma_ = ctx.alloc("gamma", kStorage, kHidden, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::bf16, static_cast<std::size_t>(kTokens) * kHidden,
                   aisp::Role::output);
    ctx.fill_uniform(x_);
    ctx.fill_uniform(gamma_, 0.5, 1.5);
  }

  void run(aisp::Context& ctx) override {
    if constexpr (kStorage == aisp::DType::f32)
      AISP_CUDA_CHECK(launch_rmsnorm_f32_storage(x_.as<const float>(), gamma_.as<const float>(),
                                                 kTokens, kHidden, kEps, y_.as<__nv_bfloat16>(),
                                                 ctx.stream()));
    else
      AISP_CUDA_CHECK(launch_rmsnorm_bf16_storage(
          x_.as<const __nv_bfloat16>(), gamma_.as<const __nv_bfloat16>(), kTokens, kHidden, kEps,
          y_.as<__nv_bfloat16>(), ctx.stream()));
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  // float64 RMSNorm of the inputs as the baseline holds them (fp32); a row's mean square is
  // computed once and kept for the row's next sampled elements.
  ReferenceFunction reference() const override {
    struct RowCache {
      std::mutex mutex;
      std::size_t row = static_cast<std::size_t>(-1);
      double rstd = 0;
    };
    auto cache = std::make_shared<RowCache>();
    return [cache](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const std::size_t row = index / kHidden, col = index % kHidden;
      const std::lock_guard<std::mutex> lock(cache->mutex);
      if (cache->row != row) {
        double sum = 0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(kHidden); ++i) {
          const double v = in.element("x", row * kHidden + i);
          sum += v * v;
        }
        cache->rstd = 1.0 / std::sqrt(sum / kHidden + static_cast<double>(kEps));
        cache->row = row;
      }
      return in.element("x", index) * cache->rstd * in.element("gamma", col);
    };
  }

  // Why looser than bf16's default (rtol 8e-3): the bf16 variant's x and gamma are the fp32
  // values rounded to bf16 (relative error up to 2^-9 each), then both outputs are rounded to bf16
  // (up to 2^-9 each, in either direction): an element can move by up to 4 · 2^-9 = 0.78% of
  // itself, right at the default rtol; the row's rstd moves by far less (an average over 8192
  // roundings). rtol 1.6e-2 (twice that bound), atol 1e-3 (the default) for elements near zero.
  // A wrong row statistic (rstd of another row: |x| RMS varies little, but eps, a missing
  // square or a sum over half the row change y by >= 30%) or a wrong gamma still fails.
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{1.6e-2, 1e-3,
                           "bf16 rounding of x and gamma (2^-9 each) plus the bf16 rounding of "
                           "both outputs (2^-9 each way) bounds an element's difference by "
                           "4*2^-9 = 0.78% of itself: rtol 1.6e-2 is twice that"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    const double elements = static_cast<double>(kTokens) * kHidden;
    w.bytes = elements * (2.0 + 2.0) + kHidden * 2.0;  // with bf16 storage: the fewest
    w.flops = 4.0 * elements;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

  std::optional<aisp::LowerPrecision> lower_precision() const override {
    if constexpr (kStorage == aisp::DType::f32)
      return std::nullopt;
    else
      return aisp::LowerPrecision{
          "bf16 storage of x and gamma (fp32 compute, bf16 output as the baseline)", 0.005,
          "x and gamma rounded to bf16 add two relative errors of RMS 2^-9/sqrt(3) = 1.1e-3 to "
          "the output's own bf16 rounding (the baseline's 1.1e-3): ~2e-3 together; bound 5e-3"};
  }

 private:
  aisp::Tensor x_, gamma_, y_;
};

}  // namespace aisp::ch19
