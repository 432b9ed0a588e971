// The host_transpose problem, shared by its variants: out = inᵀ for an n×n fp32 matrix in
// pageable host memory, row-major. n = 4096 makes each matrix 64 MiB, far above any core's L2
// and any L3 slice, so every variant streams from DRAM; what differs is how many of the bytes
// each fetched cache line and TLB entry carries are used before they are evicted.
//
// Bytes: 2·n²·4 (read in once, write out once). FLOPs: none. Ceiling: host memory bandwidth.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "aisp/benchmark.hpp"

namespace aisp::ch03 {

class HostTransposeProblem : public Benchmark {
 public:
  Signature signature() const override {
    return Signature().set("n", n_).set("dtype", DType::f32).set("layout", "row-major");
  }

  Requirements requirements() const override { return Requirements::cpu(); }

  void setup(Context& ctx) override {
    in_ = ctx.alloc("in", DType::f32, n_ * n_, Role::input, Memory::host);
    out_ = ctx.alloc("out", DType::f32, n_ * n_, Role::output, Memory::host);
    ctx.fill_uniform(in_);
  }

  std::vector<Tensor> outputs() const override { return {out_}; }

  // A transpose copies values; any difference at all is a bug.
  std::optional<Tolerance> tolerance() const override {
    return Tolerance{0.0, 0.0, "a transpose copies values bit for bit"};
  }

  Workload workload() const override {
    Workload w;
    w.bytes = 2.0 * static_cast<double>(n_) * static_cast<double>(n_) * sizeof(float);
    w.flops = 0;
    w.memory_ceiling = Ceiling::host_memory_bandwidth;
    w.compute_ceiling = Ceiling::none;
    return w;
  }

  // Host work: time each call of run() on its own; there is nothing to capture in a graph.
  TimingMode timing_mode() const override { return TimingMode::direct; }

 protected:
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  std::size_t n() const { return n_; }

  std::size_t n_ = 4096;  // protected so a test can shrink it to sizes that are not whole blocks

 private:
  Tensor in_;
  Tensor out_;
};

}  // namespace aisp::ch03
