// The optimized variant of the moe_all_to_all pairs: the whole exchange as two NCCL groups into
// buffers allocated once, in setup. First ncclAlltoAll of the per-destination counts (one int per
// GPU pair, device to device: what a multi-process run needs to learn its receive sizes), then one
// copy of each GPU's send and receive counts to pinned host memory and one synchronize per GPU
// (NCCL's send/recv take their sizes from the host), then one group of ncclSend/ncclRecv of every
// (source, destination) pair at once, straight into the output at each source's offset: every link
// busy at the same time, no allocation, each row moved once. ncclAlltoAll itself moves equal counts
// to every peer; routed tokens are not equal, so the rows go by grouped send/recv (how NCCL builds
// its own all-to-all) rather than padded to a fixed capacity, which would move up to G times the
// rows. Bytes: the problem's (moe_all_to_all_common.hpp). Without NCCL the pair is skipped.
#pragma once

#include <aisp/nccl.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "moe_all_to_all_common.hpp"
#include "nccl_all_to_all.hpp"

namespace aisp::ch04 {

class PreallocatedAllToAll : public MoeAllToAllProblem {
 public:
  using MoeAllToAllProblem::MoeAllToAllProblem;

  void setup(aisp::Context& ctx) override {
    MoeAllToAllProblem::setup(ctx);  // takes the communicators: NCCL is loaded after it
#if AISP_HAVE_NCCL
    all_to_all_ = nccl_all_to_all();
#endif
    const std::size_t g = static_cast<std::size_t>(gpus());
    host_counts_ = ctx.alloc("host_counts", aisp::DType::i32, 2 * g * g, aisp::Role::scratch,
                             aisp::Memory::pinned);
    received_rows_.assign(g, 0);
    // NCCL connects each pair of ranks on their first send/recv: here, not in a timed run().
    run(ctx);
    synchronize_all(ctx);
  }

  void run(aisp::Context& ctx) override {
#if AISP_HAVE_NCCL
    const aisp::NcclFunctions& nccl = aisp::nccl_functions();
    const int g = gpus();
    route_and_pack(ctx);
    AISP_NCCL_CHECK(nccl.GroupStart());
    for (int d = 0; d < g; ++d)
      AISP_NCCL_CHECK(all_to_all_(send_counts(d).data(), recv_counts(d).data(), 1, ncclInt32,
                                  comm(d), ctx.stream(d)));
    AISP_NCCL_CHECK(nccl.GroupEnd());
    // GPU d's send counts at [2gd, 2gd + g), its receive counts at [2gd + g, 2gd + 2g).
    int* host = host_counts_.as<int>();
    for (int d = 0; d < g; ++d) {
      const aisp::ScopedDevice on(d);
      int* mine = host + 2 * g * d;
      AISP_CUDA_CHECK(cudaMemcpyAsync(mine, send_counts(d).data(), send_counts(d).bytes(),
                                      cudaMemcpyDeviceToHost, ctx.stream(d)));
      AISP_CUDA_CHECK(cudaMemcpyAsync(mine + g, recv_counts(d).data(), recv_counts(d).bytes(),
                                      cudaMemcpyDeviceToHost, ctx.stream(d)));
    }
    synchronize_all(ctx);
    AISP_NCCL_CHECK(nccl.GroupStart());
    for (int d = 0; d < g; ++d) {
      const int* mine = host + 2 * g * d;
      std::size_t sent = 0, received = 0;  // rows
      for (int p = 0; p < g; ++p) {
        const std::size_t out = static_cast<std::size_t>(mine[p]);
        const std::size_t in = static_cast<std::size_t>(mine[g + p]);
        if (out > 0)
          AISP_NCCL_CHECK(nccl.Send(send(d).as<unsigned char>() + sent * row_bytes(), out * kHidden,
                                    ncclBfloat16, p, comm(d), ctx.stream(d)));
        if (in > 0)
          AISP_NCCL_CHECK(nccl.Recv(recv(d).as<unsigned char>() + received * row_bytes(),
                                    in * kHidden, ncclBfloat16, p, comm(d), ctx.stream(d)));
        sent += out;
        received += in;
      }
      received_rows_[static_cast<std::size_t>(d)] = received;
    }
    AISP_NCCL_CHECK(nccl.GroupEnd());
    for (int d = 0; d < g; ++d)
      zero_tail(ctx, d, received_rows_[static_cast<std::size_t>(d)]);
#else
    static_cast<void>(ctx);
    throw std::logic_error("PreallocatedAllToAll::run without NCCL: setup() should have thrown "
                           "aisp::Unavailable");
#endif
  }

 private:
#if AISP_HAVE_NCCL
  NcclAlltoAllFunction all_to_all_ = nullptr;
#endif
  aisp::Tensor host_counts_;
  std::vector<std::size_t> received_rows_;  // per GPU, this call's
};

}  // namespace aisp::ch04
