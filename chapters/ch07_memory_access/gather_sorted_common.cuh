// The problem both gather_sorted variants solve: gather rows of a table by index and sum each,
// out[i] = sum over d of table[idx[i]][d], for 2^22 indices into a table of 2^20 rows × 256 fp32
// (1 GiB: ~17× the H200's 60 MiB L2). Indices are uniform in [0, 2^20): every row is asked for
// 4 times on average, at random places in the index list. The per-row sum keeps the output small
// (16 MiB, one float per index), so writing it in any order is cheap next to the table reads;
// without it, the gather would write 4 GiB whichever order it ran in.
// One warp sums one row (warp_row_sum below, shared by both variants, so both round alike and
// their outputs agree to the bit); the variants differ only in the order the rows are visited.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch07 {

class GatherSortedProblem : public aisp::Benchmark {
 public:
  static constexpr int kRowBits = 20;
  static constexpr int kRows = 1 << kRowBits;  // table rows
  static constexpr int kRowFloats = 256;       // 1 KiB per row: one warp, two float4 per lane
  static constexpr int kIndices = 1 << 22;     // out has one element per index
  static constexpr int kWarpsPerBlock = 8;     // 256 threads, one position per warp
  static_assert(kRowFloats == 2 * 4 * 32, "warp_row_sum reads exactly two float4 per lane");
  static_assert(kIndices % kWarpsPerBlock == 0, "the grid covers the indices exactly");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("rows", kRows).set("row_floats", kRowFloats).set("indices", kIndices);
    s.set("dtype", aisp::DType::f32).set("index_dtype", aisp::DType::i32);
    s.set("index_distribution", "uniform").set("reduce", "row-sum");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    using aisp::DType, aisp::Role;
    table_ =
        ctx.alloc("table", DType::f32, static_cast<std::size_t>(kRows) * kRowFloats, Role::input);
    idx_ = ctx.alloc("idx", DType::i32, kIndices, Role::input);
    out_ = ctx.alloc("out", DType::f32, kIndices, Role::output);
    ctx.fill_uniform(table_);
    ctx.fill_uniform_int(idx_, 0, kRows - 1);
    if (reinterpret_cast<std::uintptr_t>(table_.data()) % 16 != 0)
      throw std::invalid_argument("gather_sorted: the table must be 16-byte aligned for float4 "
                                  "loads");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    // The fewest bytes: the table once (a row asked for 4 times need only come from memory once;
    // ~98% of rows are asked for at all: 1 - e^-4), the indices once, the output once.
    w.bytes = 4.0 * (static_cast<double>(kRows) * kRowFloats + 2.0 * kIndices);
    w.flops = static_cast<double>(kIndices) * (kRowFloats - 1);  // the adds of each row sum
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* table() const { return table_.as<const float>(); }
  const int* idx() const { return idx_.as<const int>(); }
  float* out() const { return out_.as<float>(); }
  static constexpr unsigned grid() { return kIndices / kWarpsPerBlock; }
  static constexpr unsigned block() { return kWarpsPerBlock * 32; }

 private:
  aisp::Tensor table_, idx_, out_;
};

// The sum of one 256-float row, by one warp: lane l adds floats 4l..4l+3 and 128+4l..128+4l+3,
// then a butterfly over the 32 lanes. Every lane ends with the same bits (each step adds the
// same two values, in either order), and both variants call this one function: equal rows give
// bit-equal sums.
__device__ __forceinline__ float warp_row_sum(const float* __restrict__ row, int lane) {
  const auto* row4 = reinterpret_cast<const float4*>(row);
  const float4 lo = row4[lane];
  const float4 hi = row4[32 + lane];
  float s = ((lo.x + lo.y) + (lo.z + lo.w)) + ((hi.x + hi.y) + (hi.z + hi.w));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, offset);
  return s;
}

}  // namespace aisp::ch07
