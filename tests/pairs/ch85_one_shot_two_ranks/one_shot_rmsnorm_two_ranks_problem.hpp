// Test-only: ch04's one-shot all-reduce + residual + RMSNorm kernel (chapters/ch04_multi_gpu/
// all_reduce_rmsnorm_kernels.cu) on ONE GPU, as two ranks. Rank r's partial sum, residual and
// gamma, its mailbox, flags and call counters all live on GPU 0, and the two ranks' kernels run
// at once on two streams: the kernel's indexing, its per-row barrier (flags raised and polled
// with system-scope release/acquire, which work on local memory too) and its call counting over
// the harness's many repeated calls are checked on a machine with one GPU, against a baseline that
// adds the two partials (one bf16 rounding, as NCCL's bf16 sum on 2 GPUs) and runs ch04's
// residual + RMSNorm kernel, and against a float64 reference. What it cannot check: NVLink, peer
// access, two GPUs' clocks and memory ordering across a link (ch04:all_reduce_rmsnorm_* on 2 GPUs).
// Outputs in ch04's order: residual_out_0, normed_0, residual_out_1, normed_1.
#pragma once

#include <aisp/aisp.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../../../chapters/ch04_multi_gpu/all_reduce_rmsnorm_kernels.cuh"

namespace aisp::test_pairs {

struct OneShotRmsNormTwoRanks : Benchmark {
  static constexpr int kRanks = 2;
  static constexpr int kRows = 16;
  static constexpr std::size_t kElements = std::size_t{kRows} * ch04::kRmsNormHidden;

  Signature signature() const override {
    Signature s;
    s.set("rows", kRows).set("hidden", ch04::kRmsNormHidden).set("ranks", kRanks);
    s.set("dtype", DType::bf16);
    return s;
  }
  void setup(Context& ctx) override {
    for (int r = 0; r < kRanks; ++r) {
      const std::string rank = std::to_string(r);
      partial.push_back(ctx.alloc("partial_" + rank, DType::bf16, kElements, Role::input));
      residual.push_back(ctx.alloc("residual_" + rank, DType::bf16, kElements, Role::input));
      gamma.push_back(ctx.alloc("gamma_" + rank, DType::bf16, ch04::kRmsNormHidden, Role::input));
      residual_out.push_back(
          ctx.alloc("residual_out_" + rank, DType::bf16, kElements, Role::output));
      normed.push_back(ctx.alloc("normed_" + rank, DType::bf16, kElements, Role::output));
      ctx.fill_uniform(partial.back());
      ctx.fill_uniform(residual.back());
      ctx.fill_uniform(gamma.back(), 0.5, 1.5);
    }
  }
  std::vector<Tensor> outputs() const override {
    return {residual_out[0], normed[0], residual_out[1], normed[1]};
  }
  Workload workload() const override {
    Workload w;
    w.bytes = static_cast<double>(kElements) * 2;
    return w;
  }
  TimingMode timing_mode() const override { return TimingMode::direct; }
  std::size_t reference_row_length() const override { return ch04::kRmsNormHidden; }
  // The same float64 math as ch04's problem (all_reduce_rmsnorm_common.cpp), recomputed per row.
  ReferenceFunction reference() const override {
    auto row_values = std::make_shared<std::vector<double>>();
    auto cached = std::make_shared<std::pair<std::size_t, std::size_t>>(~std::size_t{0}, 0);
    auto inverse_rms = std::make_shared<double>(0.0);
    return [=](const HostInputs& in, std::size_t output, std::size_t index) {
      const std::size_t hidden = ch04::kRmsNormHidden;
      const std::size_t row = index / hidden;
      const std::string rank = std::to_string(output / 2);
      if (cached->first != output || cached->second != row) {
        row_values->assign(hidden, 0.0);
        double squares = 0;
        for (std::size_t c = 0; c < hidden; ++c) {
          const std::size_t i = row * hidden + c;
          const double v = in.element("residual_" + rank, i) + in.element("partial_0", i) +
                           in.element("partial_1", i);
          (*row_values)[c] = v;
          squares += v * v;
        }
        *inverse_rms =
            1.0 / std::sqrt(squares / static_cast<double>(hidden) + ch04::kRmsNormEpsilon);
        *cached = {output, row};
      }
      const double v = (*row_values)[index % hidden];
      return output % 2 == 0 ? v : v * *inverse_rms * in.element("gamma_" + rank, index % hidden);
    };
  }

 protected:
  ch04::ResidualRmsNormOperands norm_operands(int r) const {
    ch04::ResidualRmsNormOperands x;
    x.residual = residual[r].as<const __nv_bfloat16>();
    x.gamma = gamma[r].as<const __nv_bfloat16>();
    x.residual_out = residual_out[r].as<__nv_bfloat16>();
    x.normed = normed[r].as<__nv_bfloat16>();
    x.rows = kRows;
    return x;
  }

  std::vector<Tensor> partial, residual, gamma, residual_out, normed;
};

// out = bf16(a + b), elementwise (n a multiple of 8): the sum a 2-rank bf16 all-reduce returns.
void launch_add_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* out,
                     std::size_t n, cudaStream_t stream);

}  // namespace aisp::test_pairs
