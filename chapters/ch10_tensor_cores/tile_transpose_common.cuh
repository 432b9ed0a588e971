// The problem both tile_transpose variants solve: out = inᵀ for a square 16384×16384 fp32 matrix,
// row-major (out[c·n + r] = in[r·n + c]) — chapter 7's transpose problem, here to compare how a
// tile gets into shared memory and back out: per-thread loads and stores (baseline) against the
// Tensor Memory Accelerator copying whole 2D tiles described by a tensor map (optimized).
// 1 GiB in, 1 GiB out (~36× the H200's 60 MiB L2): both stream from and to HBM.
// Bytes: 2·n²·4 = 2 GiB; 0 FLOPs. Ceiling: HBM bandwidth (ANCHORS.md: 4275 GB/s device copy).
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch10 {

class TileTransposeProblem : public aisp::Benchmark {
 public:
  static constexpr int kN = 16384;
  static_assert(kN % 64 == 0, "the transpose kernels have no tail handling: n must be a multiple "
                              "of 64 (the baseline's tile)");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("n", kN).set("dtype", aisp::DType::f32).set("layout", "row-major");
    s.set("operation", "out = in^T");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    const std::size_t count = static_cast<std::size_t>(kN) * kN;
    in_ = ctx.alloc("in", aisp::DType::f32, count, aisp::Role::input);
    out_ = ctx.alloc("out", aisp::DType::f32, count, aisp::Role::output);
    ctx.fill_uniform(in_);
    // 16-byte vector accesses and TMA both need 16-byte aligned rows (n·4 bytes apart).
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out_.data()) % 16 != 0)
      throw std::invalid_argument("tile_transpose: in and out must be 16-byte aligned");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  // A transpose moves values without arithmetic: every variant must reproduce them exactly.
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      const std::size_t n = kN;
      return in.element("in", (index % n) * n + index / n);
    };
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * kN * kN * sizeof(float);  // every element read once and written once
    w.flops = 0;
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    return w;
  }

 protected:
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  static constexpr int n() { return kN; }

 private:
  aisp::Tensor in_, out_;
};

}  // namespace aisp::ch10
