// The overlapped tensor-parallel MLP, with the token chunks as a parameter (the optimized
// tensor_parallel_mlp variants differ only in it). The tokens are cut into `chunks` row blocks;
// per GPU, a communication stream of this variant's own (created at the highest priority, so
// NCCL's blocks get SMs as soon as GEMM blocks drain) runs every chunk's all-gather, then every
// chunk's reduce-scatter, while the GPU's stream runs the chunks' GEMMs:
//   comm stream:     AG0 AG1 ... AG(C-1) | RS0 RS1 ... RS(C-1)
//   compute stream:  [wait AG c] GEMM 1 + GELU, GEMM 2 of chunk c, [signal RS c]   for c = 0..C-1
// Chunk c's GEMMs start when its all-gather has arrived, and its reduce-scatter when its GEMM 2
// is done (events, no host synchronization), so all the all-gathers but the first and all the
// reduce-scatters but the last run under GEMMs. At the end each communication stream is joined
// back into its GPU's stream. A chunk of the gathered x holds every GPU's c-th block of tokens,
// rank by rank, so the reduce-scatter of its p gives GPU d its own tokens' rows of the output.
// What stays exposed: the first chunk's all-gather and the last chunk's reduce-scatter, each 1/C
// of a collective that is half the communication (1/C of it together), plus the GEMMs' slowdown
// from sharing SMs and HBM with NCCL and from C times shorter GEMMs.
#pragma once

#include "tensor_parallel_mlp_common.hpp"

#include <vector>

namespace aisp::ch04 {

class TensorParallelMlpOverlapped : public TensorParallelMlpProblem {
 public:
  explicit TensorParallelMlpOverlapped(int chunks) : TensorParallelMlpProblem(chunks) {}
  ~TensorParallelMlpOverlapped() override { release_streams(); }

  void setup(aisp::Context& ctx) override {
    TensorParallelMlpProblem::setup(ctx);
    release_streams();
    const auto per_gpu = static_cast<std::size_t>(chunks());
    for (int d = 0; d < gpus(); ++d) {
      const aisp::ScopedDevice on(d);
      int least = 0, greatest = 0;
      AISP_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      cudaStream_t stream = nullptr;
      AISP_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
      comm_streams_.push_back(stream);
      start_.push_back(event());
      comm_done_.push_back(event());
      for (std::size_t c = 0; c < per_gpu; ++c) {
        gathered_.push_back(event());
        projected_.push_back(event());
      }
    }
    warm_up(ctx);
  }

  void teardown(aisp::Context& ctx) override {
    release_streams();
    TensorParallelMlpProblem::teardown(ctx);
  }

  // Mark "gemms_done" on GPU 0's stream after its last GEMM: the time after it is the last
  // chunk's reduce-scatter, the exposed communication at the end (the baseline marks the same).
  void run(aisp::Context& ctx) override {
    const std::vector<cudaStream_t>& compute = gpu_streams();
    const auto per_gpu = static_cast<std::size_t>(chunks());
    // The communication streams start where this run() starts on each GPU: after the previous
    // run()'s GEMMs, which read the buffers the all-gathers are about to overwrite.
    for (int d = 0; d < gpus(); ++d) {
      const auto g = static_cast<std::size_t>(d);
      const aisp::ScopedDevice on(d);
      AISP_CUDA_CHECK(cudaEventRecord(start_[g], compute[g]));
      AISP_CUDA_CHECK(cudaStreamWaitEvent(comm_streams_[g], start_[g], 0));
    }
    for (int c = 0; c < chunks(); ++c) {
      all_gather_chunk(c, comm_streams_);
      for (int d = 0; d < gpus(); ++d) {
        const auto g = static_cast<std::size_t>(d);
        const aisp::ScopedDevice on(d);
        AISP_CUDA_CHECK(cudaEventRecord(gathered_[g * per_gpu + static_cast<std::size_t>(c)],
                                        comm_streams_[g]));
      }
    }
    for (int c = 0; c < chunks(); ++c) {
      for (int d = 0; d < gpus(); ++d) {
        const auto g = static_cast<std::size_t>(d);
        const std::size_t slot = g * per_gpu + static_cast<std::size_t>(c);
        {
          const aisp::ScopedDevice on(d);
          AISP_CUDA_CHECK(cudaStreamWaitEvent(compute[g], gathered_[slot], 0));
        }
        enqueue_chunk_gemms(d, c);
        const aisp::ScopedDevice on(d);
        AISP_CUDA_CHECK(cudaEventRecord(projected_[slot], compute[g]));
        AISP_CUDA_CHECK(cudaStreamWaitEvent(comm_streams_[g], projected_[slot], 0));
      }
      reduce_scatter_chunk(c, comm_streams_);
    }
    ctx.mark("gemms_done");
    // Join: each GPU's stream waits for its communication stream's last reduce-scatter, so the
    // harness's stop events (and the next run()) come after every collective.
    for (int d = 0; d < gpus(); ++d) {
      const auto g = static_cast<std::size_t>(d);
      const aisp::ScopedDevice on(d);
      AISP_CUDA_CHECK(cudaEventRecord(comm_done_[g], comm_streams_[g]));
      AISP_CUDA_CHECK(cudaStreamWaitEvent(compute[g], comm_done_[g], 0));
    }
  }

 private:
  // An event on the current device, for ordering only.
  static cudaEvent_t event() {
    cudaEvent_t e = nullptr;
    AISP_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }

  void release_streams() noexcept {
    for (auto* events : {&start_, &comm_done_, &gathered_, &projected_}) {
      for (cudaEvent_t e : *events)
        cudaEventDestroy(e);
      events->clear();
    }
    for (cudaStream_t stream : comm_streams_)
      cudaStreamDestroy(stream);
    comm_streams_.clear();
  }

  std::vector<cudaStream_t> comm_streams_;         // per GPU
  std::vector<cudaEvent_t> start_, comm_done_;     // per GPU
  std::vector<cudaEvent_t> gathered_, projected_;  // [gpu * chunks + chunk]
};

}  // namespace aisp::ch04
