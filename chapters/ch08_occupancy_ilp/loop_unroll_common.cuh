// The problem both loop_unroll variants solve: column sums of a 4096 × 65536 row-major fp32
// matrix (1 GiB), out[c] = Σ_r a[r][c], as in a bias gradient (the sum of an output gradient over
// the batch). One thread per column walks down its column, adding the rows in order 0, 1, 2, ...;
// a warp reads 32 consecutive floats of a row per step (one 128-byte line: coalesced). 65536
// threads in blocks of 128: 512 blocks, ~16 warps per SM. Both variants run the same loop and
// add in the same order, so the sums are bit-identical; they differ only in how far the loop is
// unrolled, and so in how many of a thread's loads can be in flight at once.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch08 {

namespace {

constexpr int kColumnSumRows = 4096;
constexpr int kColumnSumCols = 65536;
constexpr int kColumnSumThreads = 128;
static_assert(kColumnSumCols % kColumnSumThreads == 0, "whole blocks only");

}  // namespace

class LoopUnrollProblem : public aisp::Benchmark {
 public:
  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("rows", kColumnSumRows).set("cols", kColumnSumCols).set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    const std::size_t count = static_cast<std::size_t>(kColumnSumRows) * kColumnSumCols;
    a_ = ctx.alloc("a", aisp::DType::f32, count, aisp::Role::input);
    out_ = ctx.alloc("column_sums", aisp::DType::f32, kColumnSumCols, aisp::Role::output);
    ctx.fill_uniform(a_);
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    const double elements = static_cast<double>(kColumnSumRows) * kColumnSumCols;
    w.bytes = (elements + kColumnSumCols) * sizeof(float);  // a read once, the sums written once
    w.flops = elements;                                     // one add per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* a() const { return a_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  static constexpr unsigned blocks() { return kColumnSumCols / kColumnSumThreads; }

 private:
  aisp::Tensor a_, out_;
};

}  // namespace aisp::ch08
