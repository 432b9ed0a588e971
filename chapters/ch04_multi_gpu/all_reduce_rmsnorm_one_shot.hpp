// The optimized variant of the all_reduce_rmsnorm pairs: one kernel per GPU does the all-reduce
// and the norm. Each GPU stores its partial rows straight into every peer's memory over NVLink
// (CUDA peer access, which the harness enables between the run's GPUs), raises a flag there, waits
// for every peer's flag, sums the rows from its own memory and finishes them with the residual add
// and the RMSNorm, in the same launch (launch_one_shot_all_reduce_rmsnorm,
// all_reduce_rmsnorm_kernels.cu: the barrier, and why repeated calls cannot deadlock or read stale
// data). Against the baseline: one launch instead of NCCL's plus the norm's, one NVLink write and
// one flag instead of NCCL's protocol, and the reduced rows never leave registers.
// Its scratch, per GPU: a mailbox of 2 x G x rows x 16 KiB (two halves, alternate calls), G x rows
// flags and rows call counters (uint64), zeroed in setup. docs/decisions.md says why this uses
// peer access and not (yet) NCCL 2.28's symmetric memory and device API.
// Bytes: the problem's (rows x 16 KiB per GPU, ceiling nvlink_peer).
#pragma once

#include <string>
#include <vector>

#include "all_reduce_rmsnorm_common.hpp"
#include "all_reduce_rmsnorm_kernels.cuh"

namespace aisp::ch04 {

class OneShotAllReduceRmsNorm : public AllReduceRmsNormProblem {
 public:
  using AllReduceRmsNormProblem::AllReduceRmsNormProblem;

  void setup(aisp::Context& ctx) override {
    AllReduceRmsNormProblem::setup(ctx);
    for (int d = 0; d < gpus(); ++d)
      for (int p = 0; p < gpus(); ++p)
        if (p != d && !ctx.peer_access(d, p))
          throw aisp::Unavailable(
              "the one-shot all-reduce stores into the peers' memory, and GPU " +
              std::to_string(d) + " has no peer access to GPU " + std::to_string(p) +
              " (cudaDeviceCanAccessPeer says no: no "
              "NVLink or PCIe peer-to-peer between them)");
    mailbox_.clear();
    flags_.clear();
    calls_.clear();
    const std::size_t g = static_cast<std::size_t>(gpus());
    const std::size_t r = static_cast<std::size_t>(rows());
    for (int d = 0; d < gpus(); ++d) {
      const std::string gpu = std::to_string(d);
      mailbox_.push_back(ctx.alloc("one_shot_mailbox_" + gpu, aisp::DType::bf16, 2 * g * elements(),
                                   aisp::Role::scratch, aisp::Memory::device, d));
      flags_.push_back(ctx.alloc("one_shot_flags_" + gpu, aisp::DType::u64, g * r,
                                 aisp::Role::scratch, aisp::Memory::device, d));
      calls_.push_back(ctx.alloc("one_shot_calls_" + gpu, aisp::DType::u64, r, aisp::Role::scratch,
                                 aisp::Memory::device, d));
      const aisp::ScopedDevice on(d);
      AISP_CUDA_CHECK(
          cudaMemsetAsync(flags_.back().data(), 0, flags_.back().bytes(), ctx.stream(d)));
      AISP_CUDA_CHECK(
          cudaMemsetAsync(calls_.back().data(), 0, calls_.back().bytes(), ctx.stream(d)));
    }
    // Every GPU's counters are zero before any GPU's first call can raise a peer's flag.
    synchronize_all(ctx);
  }

  void run(aisp::Context& ctx) override {
    OneShotOperands x;
    x.gpus = gpus();
    for (int g = 0; g < gpus(); ++g) {
      x.mailbox[g] = mailbox_[static_cast<std::size_t>(g)].as<__nv_bfloat16>();
      x.flags[g] = flags_[static_cast<std::size_t>(g)].as<std::uint64_t>();
    }
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      x.rank = d;
      x.partial = partial(d).as<const __nv_bfloat16>();
      x.norm.residual = residual(d).as<const __nv_bfloat16>();
      x.norm.gamma = gamma(d).as<const __nv_bfloat16>();
      x.norm.residual_out = residual_out(d).as<__nv_bfloat16>();
      x.norm.normed = normed(d).as<__nv_bfloat16>();
      x.norm.rows = rows();
      x.calls = calls_[static_cast<std::size_t>(d)].as<std::uint64_t>();
      launch_one_shot_all_reduce_rmsnorm(x, ctx.stream(d));
    }
  }

 private:
  std::vector<aisp::Tensor> mailbox_, flags_, calls_;
};

}  // namespace aisp::ch04
