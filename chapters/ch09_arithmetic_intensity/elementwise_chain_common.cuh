// The problem both elementwise_chain variants solve: 64 elementwise operations applied in turn to
// 2^26 floats (256 MiB in, 256 MiB out; ~4× the H200's 60 MiB L2, so every pass streams from and
// to HBM). Operation k multiplies by scale(k) when k is even and adds shift(k) when k is odd: 32
// multiplies and 32 adds per element, one FLOP each.
//
// The cap of fusing them. Run as 64 kernels, each operation reads and writes the whole array:
// 64 × 512 MiB = 32 GiB of traffic. Fused, the 64 operations happen in registers between one read
// and one write: 512 MiB. If both ran at the copy bandwidth the speedup would be 64×; that is the
// cap, and the fused kernel's fraction of the copy ceiling says how close it gets.
//
// Why the fused kernel sits at the ridge when every operation is its own instruction. 64 FP32
// operations per 8 bytes is 8 FLOP/byte; the H200 issues one warp instruction per scheduler per
// clock, 132 SMs × 128 lanes × 1.98 GHz = 33.5 T FP32 instructions/s, so 64 instructions per
// element cost 2^26 · 64 / 33.5e12 = 0.128 ms against 0.126 ms for the 512 MiB at 4275 GB/s. The
// arithmetic and the memory take the same time, and such a kernel can only reach the copy ceiling
// if it hides one entirely under the other. An FMA does a multiply and the add after it in one
// instruction: 32 per element, half the ridge (optimized_elementwise_chain.cu).
// (The workload counts 64 FLOPs per element against the fp32_simt ceiling, which the built-in
// table sets at cuBLAS SGEMM's 50.6 TFLOP/s; the memory term is the larger floor.)
//
// Rounding: the baseline rounds every operation on its own (__fmul_rn / __fadd_rn are never
// contracted into an FMA; its operations run in different kernels anyway).
// optimized_elementwise_chain_bit_identical does the same and matches it bit for bit;
// optimized_elementwise_chain rounds each multiply-add pair once (an FMA), which is at least as
// close to the float64 reference (its file works the bound out). The default f32 tolerance holds
// for all three with room to spare.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch09 {

inline constexpr int kChainOps = 64;

// Operation k's constant. Multipliers 1 + j·2^-10 and shifts j·2^-8, j cycling through ±1..±4
// and ±1..±5 (never 0, so every operation changes every element): a value of magnitude ≤ 1 stays
// within a few percent of where it started, with no overflow and no denormals.
__host__ __device__ constexpr float chain_scale(int k) {
  const int j = (k / 2) % 8;  // 0..7 -> -4..-1, 1..4
  return 1.0f + 0.0009765625f * static_cast<float>(j < 4 ? j - 4 : j - 3);
}
__host__ __device__ constexpr float chain_shift(int k) {
  const int j = (k / 2) % 10;  // 0..9 -> -5..-1, 1..5
  return 0.00390625f * static_cast<float>(j < 5 ? j - 5 : j - 4);
}
__host__ __device__ constexpr bool chain_op_multiplies(int k) { return k % 2 == 0; }

// Operation k on one value, rounded on its own (never fused with its neighbour into an FMA).
__device__ __forceinline__ float apply_chain_op(float t, int k) {
  return chain_op_multiplies(k) ? __fmul_rn(t, chain_scale(k)) : __fadd_rn(t, chain_shift(k));
}

class ElementwiseChainProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 26;
  static constexpr int kThreads = 256;
  // A tile is kVecsPerBlock float4: two per thread (32 bytes in flight per thread, both loads
  // issued before the first operation). The baseline's kernels give each block one tile, one pass
  // over the array with no grid-stride loop (chapter 7's fastest copy); the fused kernel walks
  // the tiles with a persistent grid (optimized_elementwise_chain.cu says why).
  static constexpr int kVecsPerThread = 2;
  static constexpr std::size_t kVecsPerBlock = std::size_t{kThreads} * kVecsPerThread;
  static_assert(kCount % (4 * kVecsPerBlock) == 0, "whole blocks only: the kernels have no tail");
  static constexpr unsigned kBlocks = static_cast<unsigned>(kCount / 4 / kVecsPerBlock);

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32).set("ops", kChainOps);
    s.set("op_pattern", "even k: t*scale(k), odd k: t+shift(k)");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    in_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    out_ = ctx.alloc("y", aisp::DType::f32, kCount, aisp::Role::output);
    ctx.fill_uniform(in_);
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out_.data()) % 16 != 0)
      throw std::invalid_argument("elementwise_chain: x and y must be 16-byte aligned (float4)");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  // The chain in float64: both variants must sit at fp32's rounding error from it.
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t index) {
      double t = in.element("x", index);
      for (int k = 0; k < kChainOps; ++k)
        t = chain_op_multiplies(k) ? t * static_cast<double>(chain_scale(k))
                                   : t + static_cast<double>(chain_shift(k));
      return t;
    };
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(kCount) * sizeof(float);  // x read once, y written once
    w.flops = static_cast<double>(kChainOps) * static_cast<double>(kCount);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float4* x4() const { return in_.as<const float4>(); }
  float4* y4() const { return out_.as<float4>(); }

 private:
  aisp::Tensor in_, out_;
};

}  // namespace aisp::ch09
