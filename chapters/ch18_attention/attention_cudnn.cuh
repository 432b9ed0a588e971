// cuDNN's fused SDPA as a variant of the forward problem: the library reference of the ladder.
// The plan is built in setup (chapters/common/attention_cudnn_sdpa.hpp: the backend graph,
// cuDNN loaded at run time); run() only enqueues it. Where cuDNN 9 is not installed (or has no
// engine for the graph) setup throws aisp::Unavailable: the target is skipped with the reason,
// and the other variants of the pair report no fraction of cuDNN.
#pragma once

#include <memory>
#include <string>

#include "../common/attention_cudnn_sdpa.hpp"
#include "attention_forward_common.cuh"

namespace aisp::ch18 {

class CudnnAttention : public ForwardAttentionProblem {
 public:
  using ForwardAttentionProblem::ForwardAttentionProblem;

  void setup(aisp::Context& ctx) override {
    ForwardAttentionProblem::setup(ctx);
    const ForwardShape& s = shape();
    if (s.mask != MaskKind::none)
      throw std::invalid_argument("cuDNN attention variant: built for the unmasked graph only");
    try {
      sdpa_ = std::make_unique<attention::CudnnSdpa>(
          attention::CudnnSdpaShape{s.batch, s.heads, s.seq, s.head_dim, s.softmax_scale()},
          ctx.stream());
    } catch (const attention::CudnnSdpaUnavailable& missing) {
      throw aisp::Unavailable(missing.what());
    }
    const std::size_t bytes = sdpa_->scratch_bytes() > 0 ? sdpa_->scratch_bytes() : 256;
    scratch_ = ctx.alloc("cudnn_scratch", aisp::DType::u8, bytes, aisp::Role::scratch);
    sdpa_->bind(q(), k(), v(), o(), scratch_.data());
  }

  void run(aisp::Context&) override { sdpa_->run(); }

  std::string library_reference() const override { return "cuDNN"; }

  void teardown(aisp::Context&) override { sdpa_.reset(); }

 private:
  std::unique_ptr<attention::CudnnSdpa> sdpa_;
  aisp::Tensor scratch_;
};

}  // namespace aisp::ch18
