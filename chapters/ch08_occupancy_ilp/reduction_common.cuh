// The problem every reduction variant solves: the sum of 2^28 floats (1 GiB) uniform in [0, 1),
// one float out. Read once from HBM (~18× the H200's 60 MiB L2), so the ceiling is the read
// bandwidth; only the bytes read are counted (the 4-byte result and any block partials are
// noise). The sum, ~1.34e8, is well conditioned: all terms are positive, so every summation order
// has a relative error bounded by its longest chain of dependent adds times u = 2^-24.
//
// Also here, written once for the rungs that share them: the warp-shuffle block sum (every rung
// from optimized_reduction_shuffle on), the grid-stride loop with several float4 loads in flight
// (optimized_reduction_grid_stride, _one_pass), the double-precision sum of the block partials and
// the last-block-done final combine (_one_pass, _chunks).
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace aisp::ch08 {

namespace {

constexpr int kReduceThreads = 256;

__device__ __forceinline__ void add_to(float4& acc, const float4& v) {
  acc.x += v.x;
  acc.y += v.y;
  acc.z += v.z;
  acc.w += v.w;
}

// Tree sum over the 32 lanes of a warp; the total lands in lane 0. All 32 lanes must call it.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over a block of kThreads threads; the total is valid in thread 0. Every thread of the block
// must call it (it has a barrier), at most once per type T per kernel (the per-warp totals live in
// one shared array per T).
template <class T, int kThreads>
__device__ __forceinline__ T block_sum(T v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 32 of them");
  constexpr int kWarps = kThreads / 32;
  __shared__ T warp_totals[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  v = warp_sum(v);
  if (lane == 0)
    warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0)
    v = warp_sum(lane < kWarps ? warp_totals[lane] : T{0});
  return v;
}

// The grid-stride loop sized for bytes in flight: kBlocksPerSm blocks of kReduceThreads per SM
// walk the float4s, each thread loading kLoadsInFlight float4 per trip before adding any (64 bytes
// in flight per thread) into a float4 of fp32 accumulators. Returns the block's total (valid in
// thread 0); every thread of the block must call it.
constexpr int kBlocksPerSm = 4;
constexpr int kLoadsInFlight = 4;  // float4 loads per thread per trip

__device__ __forceinline__ float grid_stride_block_total(const float4* __restrict__ in,
                                                         std::size_t count4) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kReduceThreads;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * kReduceThreads + threadIdx.x;
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (; i + (kLoadsInFlight - 1) * stride < count4; i += kLoadsInFlight * stride) {
    float4 v[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u)
      v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u)
      add_to(acc, v[u]);
  }
  for (; i < count4; i += stride)  // the last partial trip: fewer than kLoadsInFlight loads
    add_to(acc, in[i]);
  return block_sum<float, kReduceThreads>((acc.x + acc.y) + (acc.z + acc.w));
}

// The sum of `count` block partials, in double, in an order fixed by `count` alone (thread t adds
// partials t, t + kThreads, ..., then a block tree), so the result does not depend on which block
// finished when. Every thread of the block must call it; the total is valid in thread 0. The
// partials are read with __ldcg (L2, not the SM's L1, which is not coherent).
template <int kThreads>
__device__ __forceinline__ double sum_partials_in_block(const float* partials, unsigned count) {
  double sum = 0.0;
#pragma unroll 16
  for (unsigned b = threadIdx.x; b < count; b += kThreads)
    sum += static_cast<double>(__ldcg(partials + b));
  return block_sum<double, kThreads>(sum);
}

// One-pass final combine. Every block stores its partial and takes a ticket; the block that takes
// the last ticket sums all partials (sum_partials_in_block), writes the result, and resets the
// counter for the next launch. Called by every thread of every block, as the kernel's last
// statement.
//   Ordering: the writer's __threadfence() orders its partial before its ticket; the last block's
//   thread 0 reads all the tickets before it (the atomic), and its own __threadfence() after the
//   atomic orders the reads below after them; the barrier passes that on to the block's other
//   threads.
template <int kThreads>
__device__ __forceinline__ void combine_partials_in_last_block(float block_total, float* partials,
                                                               unsigned* blocks_done, float* out) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    __threadfence();
    const unsigned finished_before = atomicAdd(blocks_done, 1u);
    is_last = finished_before == gridDim.x - 1;
    if (is_last)
      __threadfence();
  }
  __syncthreads();
  if (!is_last)
    return;  // the whole block leaves together: is_last is the same for all its threads
  const double sum = sum_partials_in_block<kThreads>(partials, gridDim.x);
  if (threadIdx.x == 0) {
    *out = static_cast<float>(sum);
    *blocks_done = 0;
  }
}

}  // namespace

class ReductionProblem : public aisp::Benchmark {
 public:
  static constexpr std::size_t kCount = std::size_t{1} << 28;
  static_assert(kCount % 4 == 0, "the float4 variants have no scalar tail");

  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", kCount).set("dtype", aisp::DType::f32).set("op", "sum");
    return s;
  }

  void setup(aisp::Context& ctx) override {
    in_ = ctx.alloc("x", aisp::DType::f32, kCount, aisp::Role::input);
    out_ = ctx.alloc("sum", aisp::DType::f32, 1, aisp::Role::output);
    ctx.fill_uniform(in_, 0.0, 1.0);
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 16 != 0)
      throw std::invalid_argument("reduction: x must be 16-byte aligned for float4 loads");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  // The float64 sum, for the precision check (a half-precision accumulator would fail it).
  ReferenceFunction reference() const override {
    return [](const aisp::HostInputs& in, std::size_t, std::size_t) {
      double sum = 0;
      for (float v : in.f32("x")) sum += v;
      return sum;
    };
  }

  // Worst-case relative error, u = 2^-24 ≈ 6e-8 per dependent add: the baseline's pure tree is 28
  // adds deep (1.7e-6); the hand-written variants chain up to ~500 adds per float4 lane, then ~17
  // tree levels (~3e-5); CUB is similar. Those bounds assume every rounding goes the same way;
  // for 2^28 independent roundings they cancel. A CPU emulation of the baseline's and the two
  // hand-written variants' exact orders, on 2^28 uniform [0, 1) values with three seeds, gave the
  // correctly rounded fp32 sum every time (within half an ulp of the exact sum: ulp = 8 or 16 near
  // 1.34e8; 1e-8 to 5e-8 relative), while one plain sequential fp32 accumulator stops at 2^24
  // (87.5% low). rtol 2e-6 is 17 to 34 ulps: tighter than the fp32 default, loose enough for any
  // sane order, and a lost or doubled block partial (>= 1/16384 of the sum) is far outside it.
  std::optional<aisp::Tolerance> tolerance() const override {
    return aisp::Tolerance{
        2e-6, 0.0,
        "sum of 2^28 positive floats in another order: worst-case bounds "
        "28u (tree) to ~500u (per-lane chains); the emulated orders all gave the "
        "correctly rounded sum (< 5e-8 off); 2e-6 is 17-34 ulps"};
  }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = static_cast<double>(kCount) * sizeof(float);  // read once; the result is 4 bytes
    w.flops = static_cast<double>(kCount);                  // one add per element
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* in() const { return in_.as<const float>(); }
  const float4* in4() const { return in_.as<const float4>(); }
  float* out() const { return out_.as<float>(); }

 private:
  aisp::Tensor in_, out_;
};

// The rungs that reduce level by level (baseline, shuffle, vec4): one pass turns `count` floats
// into one partial per block of kFloatsPerBlock, and passes repeat on the partials until one value
// is left, written to the output. One scratch tensor holds every level of partials but the last.
// A rung gives only its pass: its kernel's launch.
template <std::size_t kFloatsPerBlock>
class MultiPassReduction : public ReductionProblem {
 public:
  void setup(aisp::Context& ctx) override {
    ReductionProblem::setup(ctx);
    std::size_t levels = 0;
    for (std::size_t count = kCount; pass_blocks(count) > 1; count = pass_blocks(count))
      levels += pass_blocks(count);
    partials_ = ctx.alloc("pass_partials", aisp::DType::f32, levels, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    const float* src = in();
    float* next = partials_.template as<float>();
    for (std::size_t count = kCount; count > 1;) {
      const std::size_t blocks = pass_blocks(count);
      float* dst = blocks == 1 ? out() : next;
      launch_pass(src, dst, count, static_cast<unsigned>(blocks), ctx.stream());
      src = dst;
      next += blocks;
      count = blocks;
    }
  }

  static constexpr std::size_t pass_blocks(std::size_t count) {
    return (count + kFloatsPerBlock - 1) / kFloatsPerBlock;
  }

 protected:
  // Reduces `count` floats at `src` to `blocks` partials at `dst` (one launch, checked).
  virtual void launch_pass(const float* src, float* dst, std::size_t count, unsigned blocks,
                           cudaStream_t stream) = 0;

 private:
  aisp::Tensor partials_;
};

}  // namespace aisp::ch08
