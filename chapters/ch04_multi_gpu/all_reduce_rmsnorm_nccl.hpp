// The baseline of the all_reduce_rmsnorm pairs, what a tensor-parallel decode step does without a
// fused collective: ncclAllReduce of every GPU's partial sum (bf16, sum) into a buffer on each
// GPU, then a second kernel per GPU that adds the residual and normalizes
// (launch_residual_rmsnorm, all_reduce_rmsnorm_kernels.cu). Per call and GPU: NCCL's launch and
// its handshake between the ranks, the all-reduced row written to HBM and read back by a second
// launch. Bytes: the problem's (rows x 16 KiB per GPU, ceiling nvlink_peer).
// Without NCCL (no nccl.h at build time, or no libnccl.so.2 at run time) ctx.nccl() throws
// aisp::Unavailable in setup: the pair is skipped with the reason.
#pragma once

#include <aisp/nccl.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "all_reduce_rmsnorm_common.hpp"
#include "all_reduce_rmsnorm_kernels.cuh"

namespace aisp::ch04 {

class NcclAllReduceThenRmsNorm : public AllReduceRmsNormProblem {
 public:
  using AllReduceRmsNormProblem::AllReduceRmsNormProblem;

  void setup(aisp::Context& ctx) override {
    AllReduceRmsNormProblem::setup(ctx);
    comms_.clear();
    reduced_.clear();
    for (int d = 0; d < gpus(); ++d) {
      comms_.push_back(ctx.nccl(d));  // Unavailable without NCCL
      reduced_.push_back(ctx.alloc("reduced_" + std::to_string(d), aisp::DType::bf16, elements(),
                                   aisp::Role::scratch, aisp::Memory::device, d));
    }
    // NCCL connects its ranks on the first collective: here, not in a timed run().
    run(ctx);
    synchronize_all(ctx);
  }

  void run(aisp::Context& ctx) override {
#if AISP_HAVE_NCCL
    const aisp::NcclFunctions& nccl = aisp::nccl_functions();
    AISP_NCCL_CHECK(nccl.GroupStart());
    for (int d = 0; d < gpus(); ++d)
      AISP_NCCL_CHECK(nccl.AllReduce(
          partial(d).data(), reduced_[static_cast<std::size_t>(d)].data(), elements(), ncclBfloat16,
          ncclSum, comms_[static_cast<std::size_t>(d)], ctx.stream(d)));
    AISP_NCCL_CHECK(nccl.GroupEnd());
    ctx.mark("all_reduced");  // GPU 0's stream: NCCL's end there
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      ResidualRmsNormOperands x;
      x.residual = residual(d).as<const __nv_bfloat16>();
      x.gamma = gamma(d).as<const __nv_bfloat16>();
      x.residual_out = residual_out(d).as<__nv_bfloat16>();
      x.normed = normed(d).as<__nv_bfloat16>();
      x.rows = rows();
      launch_residual_rmsnorm(reduced_[static_cast<std::size_t>(d)].as<const __nv_bfloat16>(), x,
                              ctx.stream(d));
    }
#else
    static_cast<void>(ctx);
    throw std::logic_error("NcclAllReduceThenRmsNorm::run without NCCL: setup() should have "
                           "thrown aisp::Unavailable");
#endif
  }

 private:
  std::vector<ncclComm*> comms_;
  std::vector<aisp::Tensor> reduced_;
};

}  // namespace aisp::ch04
