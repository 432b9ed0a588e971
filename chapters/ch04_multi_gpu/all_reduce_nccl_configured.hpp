// ncclAllReduce on the variant's own communicators, created with an ncclConfig_t
// (nccl_configured_communicators.hpp says what each knob changes), for the all_reduce pairs'
// tuned variants: the same call as all_reduce_nccl.cuh (one ncclAllReduce per GPU, grouped, f32
// sum, out of place), so the pair's baseline and its NCCL library reference (the harness's
// communicator, NCCL's defaults) time the same work. Issue 14 asks NCCL's bus bandwidth at
// >= 256 MB to reach 90% of the peer-copy ceiling; the defaults reach 0.65 (256 MiB) and 0.78
// (1 GiB) in the pairs on two H200s (chapter README).
// Bytes: the problem's (kBytes per GPU). Ceiling: nvlink_peer.
#pragma once

#include <aisp/nccl.hpp>

#include <stdexcept>
#include <string>

#include "all_reduce_common.cuh"
#include "nccl_configured_communicators.hpp"

namespace aisp::ch04 {

template <std::size_t kBytesPerGpu>
class NcclConfiguredAllReduce : public AllReduceProblem<kBytesPerGpu> {
  using Problem = AllReduceProblem<kBytesPerGpu>;

 public:
  explicit NcclConfiguredAllReduce(NcclCommunicatorConfig config) : config_(config) {}

  void setup(aisp::Context& ctx) override {
    // The communicators are built over this process's GPUs (ncclGetUniqueId and every rank's
    // ncclCommInitRankConfig here): one process driving every GPU of the all-reduce.
    if (ctx.device_count() < 2)
      throw aisp::Unavailable("the configured-communicator all-reduce creates one NCCL rank per "
                              "GPU of this process and needs at least 2 of them in one process; "
                              "this process has " +
                              std::to_string(ctx.device_count()));
    Problem::setup(ctx);
    comms_.create(this->gpus(), config_);
    // NCCL connects its ranks on the first collective: here, not in a timed run().
    run(ctx);
    for (int d = 0; d < this->gpus(); ++d)
      AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
  }

  void run(aisp::Context& ctx) override {
#if AISP_HAVE_NCCL
    const aisp::NcclFunctions& nccl = aisp::nccl_functions();
    AISP_NCCL_CHECK(nccl.GroupStart());
    for (int d = 0; d < this->gpus(); ++d)
      AISP_NCCL_CHECK(nccl.AllReduce(this->grad(d).data(), this->reduced(d).data(), Problem::kCount,
                                     ncclFloat32, ncclSum, comms_.communicator(d), ctx.stream(d)));
    AISP_NCCL_CHECK(nccl.GroupEnd());
#else
    static_cast<void>(ctx);
    throw std::logic_error("NcclConfiguredAllReduce::run without NCCL: setup() should have "
                           "thrown aisp::Unavailable");
#endif
  }

  void teardown(aisp::Context&) override { comms_.destroy(); }

 private:
  NcclCommunicatorConfig config_;
  ConfiguredNcclCommunicators comms_;
};

}  // namespace aisp::ch04
