// The problem every bank_conflicts variant solves: an inclusive prefix sum along each row of a
// 2^23 × 32 fp32 matrix (row-major, 1 GiB in, 1 GiB out): out[r][c] = in[r][0] + … + in[r][c],
// added left to right in fp32, so every variant produces bit-identical sums. Every variant stages
// a block's 256 rows (32 KiB) in shared memory with coalesced loads, lets thread r scan row r
// sequentially in shared memory, and writes the tile back with coalesced stores. They differ only
// in how the tile is laid out in shared memory, which decides whether the scan's accesses — the
// 32 lanes of a warp reading 32 different rows at the same column — hit one bank or 32.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <vector>

namespace aisp::ch06 {

class BankConflictsProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kRows = std::size_t{1} << 23;
  static constexpr int kCols = 32;           // one row is 32 words: one full sweep of the banks
  static constexpr int kThreads = 256;       // threads per block
  static constexpr int kRowsPerBlock = 256;  // one row per thread in the scan
  static constexpr std::size_t kCount = kRows * kCols;
  static_assert(kRows % kRowsPerBlock == 0, "the kernels have no tail: rows must fill the blocks");
  static_assert(kRowsPerBlock == kThreads, "thread r scans row r of the block's tile");
  static_assert(kThreads % kCols == 0, "a warp's coalesced tile accesses must cover whole rows");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("rows", kRows).set("cols", kCols).set("dtype", aisp::DType::f32);
    s.set("op", "row_inclusive_scan");
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
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // read once, written once
    w.flops = static_cast<double>(kCount);                        // one add per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  static constexpr unsigned kBlocks = static_cast<unsigned>(kRows / kRowsPerBlock);
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }

 private:
  aisp::Tensor in_, out_;
};

}  // namespace aisp::ch06
