// The problem every copy_vectorized variant solves: copy 2^28 floats (1 GiB), out[i] = in[i].
// 2 GiB of traffic is ~36× the H200's 60 MiB L2, so the copy streams from and to HBM. All
// variants are coalesced. The baseline and optimized_copy_vectorized use a grid-stride loop over
// a grid sized from the SM count (read in setup) and differ in how many bytes each thread moves
// per memory instruction and keeps in flight; optimized_copy_vectorized_one_pass drops the loop.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch07 {

class VectorizedCopyProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 28;
  static constexpr int kThreads = 256;

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    in_ = ctx.alloc("in", aisp::DType::f32, kCount, aisp::Role::input);
    out_ = ctx.alloc("out", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(in_);
    sm_count_ = ctx.device_properties().multiProcessorCount;
    // float4 accesses need 16-byte aligned bases (cudaMalloc gives 256).
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out_.data()) % 16 != 0)
      throw std::invalid_argument("copy_vectorized: in and out must be 16-byte aligned");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // read once + written once
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  // A grid of `blocks_per_sm` resident blocks on every SM: the grid-stride loop does the rest.
  unsigned grid(int blocks_per_sm) const {
    return static_cast<unsigned>(sm_count_ * blocks_per_sm);
  }

 private:
  aisp::Tensor in_, out_;
  int sm_count_ = 0;
};

}  // namespace aisp::ch07
