// The problem both copy_coalesced variants solve: copy 2^28 floats (1 GiB) from one buffer to
// another, out[i] = in[i], kElementsPerThread elements per thread (all loads issued before the
// stores, so each thread keeps several independent loads in flight: one 4-byte load per thread
// cannot cover HBM latency at 4+ TB/s), 256 threads per block. The buffer is also
// viewed as a 16384×16384 row-major matrix, which is how the baseline walks it. 2 GiB of traffic
// is ~36× the H200's 60 MiB L2, so the copy streams from and to HBM.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch07 {

class CoalescedCopyProblem : public aisp::Benchmark {
 public:
  static constexpr int kLog2Rows = 14;
  static constexpr int kLog2Cols = 14;
  static constexpr std::size_t kRows = std::size_t{1} << kLog2Rows;
  static constexpr std::size_t kCols = std::size_t{1} << kLog2Cols;
  static constexpr std::size_t kCount = kRows * kCols;
  static constexpr int kThreads = 256;
  static constexpr int kElementsPerThread = 8;
  static_assert(kCount % (kThreads * kElementsPerThread) == 0, "the count must fill the blocks");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("rows", kRows).set("cols", kCols);
    s.set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    in_ = ctx.alloc("in", aisp::DType::f32, kCount, aisp::Role::input);
    out_ = ctx.alloc("out", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(in_);
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
  static constexpr unsigned kBlocks =
      static_cast<unsigned>(kCount / (kThreads * kElementsPerThread));
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }

 private:
  aisp::Tensor in_, out_;
};

}  // namespace aisp::ch07
