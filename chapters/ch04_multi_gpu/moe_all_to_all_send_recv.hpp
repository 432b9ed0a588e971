// The baseline of the moe_all_to_all pairs, the reference system's dispatch: after the shared
// routing and packing, each GPU's counts are copied to the host one GPU at a time (a synchronize
// each), then for every (source, destination) pair in turn a receive buffer of exactly its rows is
// cudaMalloc'ed on the destination, the rows are moved by one ncclSend/ncclRecv pair, copied into
// the destination's output, and the buffer is cudaFree'd after a synchronize. Per step: G²
// allocations and frees (cudaFree waits for the device), G + G² host synchronizations, the
// transfers one pair at a time (no two links busy at once), and every row copied twice on the
// receiver. Bytes: the problem's (moe_all_to_all_common.hpp). Without NCCL the pair is skipped.
#pragma once

#include <aisp/nccl.hpp>

#include <stdexcept>
#include <vector>

#include "moe_all_to_all_common.hpp"

namespace aisp::ch04 {

class PerPeerSendRecvWithAllocation : public MoeAllToAllProblem {
 public:
  using MoeAllToAllProblem::MoeAllToAllProblem;

  void setup(aisp::Context& ctx) override {
    MoeAllToAllProblem::setup(ctx);
    // NCCL connects each pair of ranks on their first send/recv: here, not in a timed run().
    run(ctx);
    synchronize_all(ctx);
  }

  void run(aisp::Context& ctx) override {
#if AISP_HAVE_NCCL
    const aisp::NcclFunctions& nccl = aisp::nccl_functions();
    const int g = gpus();
    route_and_pack(ctx);
    std::vector<std::vector<int>> counts(static_cast<std::size_t>(g),
                                         std::vector<int>(static_cast<std::size_t>(g)));
    for (int s = 0; s < g; ++s) {
      const aisp::ScopedDevice on(s);
      AISP_CUDA_CHECK(cudaMemcpyAsync(counts[static_cast<std::size_t>(s)].data(),
                                      send_counts(s).data(), send_counts(s).bytes(),
                                      cudaMemcpyDeviceToHost, ctx.stream(s)));
      AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(s)));
    }
    std::vector<std::size_t> received(static_cast<std::size_t>(g), 0);  // rows, per destination
    for (int s = 0; s < g; ++s) {
      std::size_t sent = 0;
      for (int d = 0; d < g; ++d) {
        const std::size_t rows = static_cast<std::size_t>(
            counts[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)]);
        if (rows > 0) {
          const std::size_t bytes = rows * row_bytes();
          void* staging = nullptr;
          {
            const aisp::ScopedDevice on(d);
            AISP_CUDA_CHECK(cudaMalloc(&staging, bytes));
          }
          AISP_NCCL_CHECK(nccl.GroupStart());
          AISP_NCCL_CHECK(nccl.Send(send(s).as<unsigned char>() + sent * row_bytes(),
                                    rows * kHidden, ncclBfloat16, d, comm(s), ctx.stream(s)));
          AISP_NCCL_CHECK(
              nccl.Recv(staging, rows * kHidden, ncclBfloat16, s, comm(d), ctx.stream(d)));
          AISP_NCCL_CHECK(nccl.GroupEnd());
          const aisp::ScopedDevice on(d);
          AISP_CUDA_CHECK(cudaMemcpyAsync(recv(d).as<unsigned char>() +
                                              received[static_cast<std::size_t>(d)] * row_bytes(),
                                          staging, bytes, cudaMemcpyDeviceToDevice, ctx.stream(d)));
          AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
          AISP_CUDA_CHECK(cudaFree(staging));
        }
        sent += rows;
        received[static_cast<std::size_t>(d)] += rows;
      }
    }
    for (int d = 0; d < g; ++d) {
      std::vector<int> from(static_cast<std::size_t>(g));
      for (int s = 0; s < g; ++s)
        from[static_cast<std::size_t>(s)] =
            counts[static_cast<std::size_t>(s)][static_cast<std::size_t>(d)];
      const aisp::ScopedDevice on(d);
      // Pageable source: the call returns once `from` is staged, so it may go out of scope.
      AISP_CUDA_CHECK(cudaMemcpyAsync(recv_counts(d).data(), from.data(), recv_counts(d).bytes(),
                                      cudaMemcpyHostToDevice, ctx.stream(d)));
      AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
      zero_tail(ctx, d, received[static_cast<std::size_t>(d)]);
    }
#else
    static_cast<void>(ctx);
    throw std::logic_error("PerPeerSendRecvWithAllocation::run without NCCL: setup() should "
                           "have thrown aisp::Unavailable");
#endif
  }
};

}  // namespace aisp::ch04
