// AllReduceRmsNormProblem (all_reduce_rmsnorm_common.hpp): the tensors, checks and float64
// reference both all_reduce_rmsnorm variants share. Host code only.
#include "all_reduce_rmsnorm_common.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "all_reduce_rmsnorm_kernels.cuh"
#include "per_gpu_tensor.hpp"

namespace aisp::ch04 {

std::size_t AllReduceRmsNormProblem::elements() const {
  return static_cast<std::size_t>(rows_) * kRmsNormHidden;
}

aisp::Signature AllReduceRmsNormProblem::signature() const {
  aisp::Signature s;
  s.set("rows", rows_).set("hidden", kRmsNormHidden).set("dtype", aisp::DType::bf16);
  s.set("bytes_per_gpu", elements() * 2).set("op", "all_reduce_sum+residual+rmsnorm");
  s.set("epsilon", static_cast<double>(kRmsNormEpsilon));
  if (gpus_ > 0)
    s.set("gpus", gpus_);  // known once setup has seen the run's GPUs
  return s;
}

aisp::Requirements AllReduceRmsNormProblem::requirements() const {
  aisp::Requirements r;
  r.min_gpus = 2;
  r.needs_one_process = "the one-shot variant stores into the peers' memory through peer "
                        "pointers, and the float64 reference reads every GPU's inputs";
  return r;
}

void AllReduceRmsNormProblem::setup(aisp::Context& ctx) {
  gpus_ = ctx.device_count();
  if (gpus_ > kOneShotMaxGpus)
    throw aisp::Unavailable("all_reduce_rmsnorm's one-shot kernel takes at most " +
                            std::to_string(kOneShotMaxGpus) +
                            " GPUs (one NVLink domain); this "
                            "run has " +
                            std::to_string(gpus_) + ": give --gpus 2..8");
  for (auto* list : {&partial_, &residual_, &gamma_, &residual_out_, &normed_})
    list->clear();
  const auto on_gpu = [&](const std::string& name, int d, std::size_t count, aisp::Role role) {
    return per_gpu_tensor(ctx, name, d, count, role);
  };
  for (int d = 0; d < gpus_; ++d) {
    partial_.push_back(on_gpu("partial", d, elements(), aisp::Role::input));
    residual_.push_back(on_gpu("residual", d, elements(), aisp::Role::input));
    gamma_.push_back(on_gpu("gamma", d, kRmsNormHidden, aisp::Role::input));
    residual_out_.push_back(on_gpu("residual_out", d, elements(), aisp::Role::output));
    normed_.push_back(on_gpu("normed", d, elements(), aisp::Role::output));
    ctx.fill_uniform(partial_.back());
    ctx.fill_uniform(residual_.back());
    ctx.fill_uniform(gamma_.back(), 0.5, 1.5);  // a norm weight near 1, as trained ones are
  }
}

std::vector<aisp::Tensor> AllReduceRmsNormProblem::outputs() const {
  std::vector<aisp::Tensor> out;
  for (int d = 0; d < gpus_; ++d) {
    out.push_back(residual_out(d));
    out.push_back(normed(d));
  }
  return out;
}

// Two GPUs: NCCL's bf16 sum of an element is one addition a + b rounded once to bf16, and the
// one-shot kernel rounds the exact fp32 a + b once: the same bits, and the same finishing code,
// so bf16's default tolerance is kept (the variants should agree exactly). More GPUs: NCCL rounds
// its partial sums to bf16 at every step of its ring or tree, in its own order, while the one-shot
// kernel adds in fp32 and rounds once: up to G-2 extra bf16 roundings (2^-8 relative) of partial
// sums of magnitude up to G (inputs in [-1, 1)), carried into residual_out and, scaled by 1/RMS
// (about 1), into normed. Not yet run on more than 2 GPUs.
std::optional<aisp::Tolerance> AllReduceRmsNormProblem::tolerance() const {
  if (gpus_ <= 2)
    return std::nullopt;
  return aisp::Tolerance{8e-3, (gpus_ - 2) * gpus_ / 256.0,
                         "more than 2 GPUs: NCCL rounds each partial sum to bf16 in its own "
                         "order, the one-shot kernel sums in fp32 and rounds once: up to G-2 bf16 "
                         "roundings (2^-8) of partial sums up to G in magnitude"};
}

aisp::Workload AllReduceRmsNormProblem::workload() const {
  aisp::Workload w;
  w.bytes = static_cast<double>(elements()) * 2;  // the message: one GPU's partial, bf16
  w.flops = 0;
  w.memory_ceiling = aisp::Ceiling::nvlink_peer;
  return w;
}

// Row by row (reference_row_length): the first element asked of a row computes the row's
// residual_out in float64 and its RMS; the rest of the row's elements read them. Exact math, no
// bf16 rounding of the sum or of residual_out: both variants' rounding shows as their error.
aisp::Benchmark::ReferenceFunction AllReduceRmsNormProblem::reference() const {
  struct RowCache {
    std::size_t output = static_cast<std::size_t>(-1);
    std::size_t row = static_cast<std::size_t>(-1);
    std::vector<double> residual_out;
    double inverse_rms = 0;
  };
  const int gpus = gpus_;
  auto cache = std::make_shared<RowCache>();
  return [gpus, cache](const aisp::HostInputs& in, std::size_t output, std::size_t index) {
    const std::size_t hidden = kRmsNormHidden;
    const std::size_t row = index / hidden;
    const std::size_t column = index % hidden;
    const int d = static_cast<int>(output / 2);
    const std::string gpu = std::to_string(d);
    if (cache->output != output || cache->row != row) {
      cache->residual_out.assign(hidden, 0.0);
      double squares = 0;
      for (std::size_t c = 0; c < hidden; ++c) {
        double value = in.element("residual_" + gpu, row * hidden + c);
        for (int g = 0; g < gpus; ++g)
          value += in.element("partial_" + std::to_string(g), row * hidden + c);
        cache->residual_out[c] = value;
        squares += value * value;
      }
      cache->inverse_rms = 1.0 / std::sqrt(squares / static_cast<double>(hidden) + kRmsNormEpsilon);
      cache->output = output;
      cache->row = row;
    }
    const double residual_out = cache->residual_out[column];
    if (output % 2 == 0)
      return residual_out;
    return residual_out * cache->inverse_rms * in.element("gamma_" + gpu, column);
  };
}

std::size_t AllReduceRmsNormProblem::reference_row_length() const { return kRmsNormHidden; }

void AllReduceRmsNormProblem::synchronize_all(aisp::Context& ctx) const {
  for (int d = 0; d < gpus_; ++d) {
    const aisp::ScopedDevice on(d);
    AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
  }
}

}  // namespace aisp::ch04
