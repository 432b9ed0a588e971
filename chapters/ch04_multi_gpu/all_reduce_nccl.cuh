// The NCCL all-reduce, both sizes' optimized variant and the pair's library reference: one
// ncclAllReduce per GPU on the harness's communicator (ctx.nccl(d): one rank per GPU, one
// process), grouped so one thread can launch every rank. NCCL moves the data GPU to GPU over
// NVLink and adds it on the GPUs; a ring sends each byte 2(G-1)/G times per link, and at small
// sizes NCCL picks lower-latency protocols (LL, LL128) and algorithms (tree, NVLS where NVSwitch
// multicast exists). Without NCCL (no nccl.h at build time, or no libnccl.so.2 at run time)
// ctx.nccl() throws aisp::Unavailable in setup: the pair is skipped with the reason.
// Bytes: the problem's (kBytes per GPU). Ceiling: nvlink_peer.
#pragma once

#include <aisp/nccl.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "all_reduce_common.cuh"

namespace aisp::ch04 {

template <std::size_t kBytesPerGpu>
class NcclAllReduce : public AllReduceProblem<kBytesPerGpu> {
  using Problem = AllReduceProblem<kBytesPerGpu>;

 public:
  std::string library_reference() const override { return "NCCL"; }

  void setup(aisp::Context& ctx) override {
    Problem::setup(ctx);
    comms_.clear();
    for (int d = 0; d < this->gpus(); ++d) comms_.push_back(ctx.nccl(d));
    // NCCL connects its ranks on the first collective (buffers, proxy threads): do it here, so
    // no run() pays for it or allocates. The outputs are overwritten by every run().
    run(ctx);
    for (int d = 0; d < this->gpus(); ++d) AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
  }

  void run(aisp::Context& ctx) override {
#if AISP_HAVE_NCCL
    const aisp::NcclFunctions& nccl = aisp::nccl_functions();
    AISP_NCCL_CHECK(nccl.GroupStart());
    for (int d = 0; d < this->gpus(); ++d)
      AISP_NCCL_CHECK(nccl.AllReduce(this->grad(d).data(), this->reduced(d).data(),
                                     Problem::kCount, ncclFloat32, ncclSum,
                                     comms_[static_cast<std::size_t>(d)], ctx.stream(d)));
    AISP_NCCL_CHECK(nccl.GroupEnd());
#else
    static_cast<void>(ctx);
    throw std::logic_error("NcclAllReduce::run without NCCL: setup() should have thrown "
                           "aisp::Unavailable");
#endif
  }

 private:
  std::vector<ncclComm*> comms_;
};

}  // namespace aisp::ch04
