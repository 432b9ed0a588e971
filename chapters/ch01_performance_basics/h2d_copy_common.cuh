// The problem both h2d_copy variants solve: copy 256 MiB of floats from host memory to device
// memory with cudaMemcpyAsync on ctx.stream(). The variants differ only in the kind of host
// memory the source lives in, which the constructor takes: pageable (malloc'd) or pinned
// (page-locked, cudaMallocHost).
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch01 {

class H2dCopyProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kBytes = std::size_t{256} << 20;
  static constexpr std::size_t kCount = kBytes / sizeof(float);

  explicit H2dCopyProblem(aisp::Memory source_memory) : source_memory_(source_memory) {}

  // The memory kind is the technique, not the problem: both variants report this signature.
  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("bytes", kBytes).set("dtype", aisp::DType::f32).set("direction", "host_to_device");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    source_ = ctx.alloc("source", aisp::DType::f32, kCount, aisp::Role::input, source_memory_);
    destination_ = ctx.alloc("destination", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(source_);  // also touches every page, so no first-touch faults are timed
  }

  std::vector<aisp::Tensor> outputs() const override { return {destination_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = static_cast<double>(kBytes);  // crosses PCIe once
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::host_to_device_pinned;
    return w;
  }

  // Pageable copies do host work inside the call (staging through a pinned buffer); time each
  // call as it is.
  aisp::TimingMode timing_mode() const override { return aisp::TimingMode::direct; }

 protected:
  const void* source() const { return source_.data(); }
  void* destination() const { return destination_.data(); }

 private:
  aisp::Memory source_memory_;
  aisp::Tensor source_, destination_;
};

}  // namespace aisp::ch01
