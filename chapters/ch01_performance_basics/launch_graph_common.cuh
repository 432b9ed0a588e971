// The problem both launch_graph variants solve: a chain of 1000 tiny dependent kernels on a
// 1024-float array, y = x + 1, then y += 1 another 999 times, so y = x + 1000 however often run()
// is called. Each kernel touches only 4 KiB; what is measured is the cost of launching it. The
// chain is written once here; the variants differ only in how it reaches the GPU.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch01 {

namespace {

__global__ void add_one_from(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    y[i] = x[i] + 1.0f;
}

__global__ void add_one(float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n)
    y[i] += 1.0f;
}

}  // namespace

class LaunchGraphProblem : public aisp::Benchmark {
 public:
  static constexpr int kElements = 1024;
  static constexpr int kLaunches = 1000;
  static constexpr int kThreads = 256;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kElements).set("launches", kLaunches).set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    x_ = ctx.alloc("x", aisp::DType::f32, kElements, aisp::Role::input);
    y_ = ctx.alloc("y", aisp::DType::f32, kElements, aisp::Role::output);
    ctx.fill_uniform(x_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {y_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    // The fewest bytes the problem needs: x read once, y written once. (The chain itself moves
    // 1000× that through L2, which is the point: it is not the cost here, the launches are.)
    w.bytes = 2.0 * kElements * sizeof(float);
    w.flops = static_cast<double>(kLaunches) * kElements;
    w.launches = kLaunches;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    w.launch_ceiling = aisp::Ceiling::graph_node_launch;
    return w;
  }

  // Launch overhead is the subject: time every call as it is, never replayed through a graph.
  aisp::TimingMode timing_mode() const override { return aisp::TimingMode::direct; }

 protected:
  // Enqueues the whole chain on `stream`, one launch per kernel.
  void enqueue_chain(cudaStream_t stream) const {
    constexpr int blocks = (kElements + kThreads - 1) / kThreads;
    float* y = y_.as<float>();
    add_one_from<<<blocks, kThreads, 0, stream>>>(x_.as<const float>(), y, kElements);
    AISP_CHECK_LAUNCH();
    for (int launch = 1; launch < kLaunches; ++launch) {
      add_one<<<blocks, kThreads, 0, stream>>>(y, kElements);
      AISP_CHECK_LAUNCH();
    }
  }

 private:
  aisp::Tensor x_, y_;
};

}  // namespace aisp::ch01
