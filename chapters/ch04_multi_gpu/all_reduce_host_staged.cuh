// The host-staged all-reduce, both sizes' baseline: every GPU copies its gradient to pinned host
// memory, the host waits for all of them, adds them elementwise (in device order, on up to 16
// threads for large buffers), and every GPU copies the sum back. Code that has no collective
// library does this; so do the reference system's "all-reduces" (SEED-MAP, wave H). Each byte
// crosses PCIe twice and the GPUs idle while the host adds: bounded by the pinned transfer and
// host memory bandwidths, not by NVLink.
// Under mpirun (one GPU per process, docs/multi-gpu.md) the GPUs' buffers are in other processes:
// each rank stages its own, and the host sum is the harness's host all-reduce over the ranks
// (aisp/host_collective.hpp: the floats go to the orchestrator through shared memory, the
// orchestrators sum them with MPI_Allreduce), in rank order, so two ranks add a + b as one process
// does. The same staging, a different host sum: what a host-staged all-reduce across processes
// (Gloo, MPI on CPU buffers) does.
// Bytes: the problem's (kBytes per GPU); the host reads G x kBytes and writes kBytes more.
#pragma once

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <aisp/host_collective.hpp>

#include "all_reduce_common.cuh"

namespace aisp::ch04 {

template <std::size_t kBytesPerGpu>
class HostStagedAllReduce : public AllReduceProblem<kBytesPerGpu> {
  using Problem = AllReduceProblem<kBytesPerGpu>;

 public:
  void setup(aisp::Context& ctx) override {
    Problem::setup(ctx);
    staging_.clear();
    for (int d = 0; d < this->gpus(); ++d)
      staging_.push_back(ctx.alloc("staging_" + std::to_string(d), aisp::DType::f32,
                                   Problem::kCount, aisp::Role::scratch, aisp::Memory::pinned));
    sum_ = ctx.alloc("sum", aisp::DType::f32, Problem::kCount, aisp::Role::scratch,
                     aisp::Memory::pinned);
    // Below ~1M elements a thread costs more to start than its share of the adds.
    constexpr std::size_t kElementsPerThread = std::size_t{1} << 20;
    threads_ = static_cast<int>(std::clamp<std::size_t>(Problem::kCount / kElementsPerThread, 1,
                                                        std::min(16, ctx.host_threads())));
  }

  void run(aisp::Context& ctx) override {
    const int gpus = this->gpus();
    for (int d = 0; d < gpus; ++d) {
      const aisp::ScopedDevice on(d);
      AISP_CUDA_CHECK(cudaMemcpyAsync(staging_[static_cast<std::size_t>(d)].data(),
                                      this->grad(d).data(), Problem::kBytes,
                                      cudaMemcpyDeviceToHost, ctx.stream(d)));
    }
    for (int d = 0; d < gpus; ++d) AISP_CUDA_CHECK(cudaStreamSynchronize(ctx.stream(d)));
    add_on_host();
    if (aisp::ranks_in_other_processes(ctx))  // mpirun: the other ranks' gradients
      aisp::host_all_reduce_sum(ctx, sum_.as<float>(), Problem::kCount);
    for (int d = 0; d < gpus; ++d) {
      const aisp::ScopedDevice on(d);
      AISP_CUDA_CHECK(cudaMemcpyAsync(this->reduced(d).data(), sum_.data(), Problem::kBytes,
                                      cudaMemcpyHostToDevice, ctx.stream(d)));
    }
    // The next call's downloads are queued behind these uploads on the same streams, and it
    // synchronizes them before it writes `sum` again.
  }

 private:
  // sum[i] = staging_0[i] + staging_1[i] + ..., in device order; threads started and joined here.
  void add_on_host() {
    const std::size_t n = Problem::kCount;
    auto add_range = [this, n](int part) {
      const std::size_t begin = n * static_cast<std::size_t>(part) / threads_;
      const std::size_t end = n * static_cast<std::size_t>(part + 1) / threads_;
      float* sum = sum_.as<float>();
      const float* first = staging_[0].as<const float>();
      for (std::size_t i = begin; i < end; ++i) sum[i] = first[i];
      for (std::size_t d = 1; d < staging_.size(); ++d) {
        const float* next = staging_[d].as<const float>();
        for (std::size_t i = begin; i < end; ++i) sum[i] += next[i];
      }
    };
    std::vector<std::thread> workers;
    for (int part = 1; part < threads_; ++part) workers.emplace_back(add_range, part);
    add_range(0);
    for (std::thread& w : workers) w.join();
  }

  std::vector<aisp::Tensor> staging_;
  aisp::Tensor sum_;
  int threads_ = 1;
};

}  // namespace aisp::ch04
