// The problem both cp_async_pipeline variants solve: a 49-tap 1D filter over 2^28 floats (1 GiB in,
// 1 GiB out), out[i] = sum over k in [0, 48] of w_k · in[i - 24 + k], with in[j] = 0 outside the
// array and triangle weights w_k = (25 - |k - 24|) / 1024. 49 FMAs per element = 98 FLOPs per 8
// bytes moved: the compute floor at the FP32 SIMT ceiling (2^28 · 98 / 50.6 TFLOP/s = 0.52 ms)
// and the memory floor (2 GiB / 4275 GB/s = 0.50 ms) are nearly equal, so a kernel that does its
// loads and its math one after the other pays for both, and one that overlaps them pays ~once.
// Both variants run a persistent grid of one 1024-thread block per SM. A block walks its tiles of
// 16384 outputs: it stages the tile's 16384 + 48 inputs (64 KiB, with the halo) in shared memory,
// then each thread computes 4 groups of 4 consecutive outputs from it (stencil4 below, shared by
// both variants, so both round alike and agree to the bit). They differ only in how the stage
// is filled.
#pragma once

#include <aisp/aisp.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace aisp::ch07 {

namespace filter1d {

constexpr std::size_t kCount = std::size_t{1} << 28;
constexpr int kRadius = 24;
constexpr int kTaps = 2 * kRadius + 1;
constexpr int kTile = 16384;                                       // outputs per tile
constexpr int kStageFloats = kTile + 2 * kRadius;                  // inputs per tile, halo included
constexpr int kStageChunks = kStageFloats / 4;                     // 16-byte chunks per stage: 4108
constexpr std::size_t kStageBytes = sizeof(float) * kStageFloats;  // 65728
constexpr int kTiles = static_cast<int>(kCount / kTile);
constexpr int kThreads = 1024;
constexpr int kGroupsPerThread = kTile / 4 / kThreads;                      // 4 groups of 4 outputs
constexpr int kChunksPerThread = (kStageChunks + kThreads - 1) / kThreads;  // 5, the last partial
constexpr int kWindowVecs = (4 + 2 * kRadius) / 4;  // float4s one group of 4 outputs reads: 13
static_assert(kCount % kTile == 0, "whole tiles only");
static_assert(kRadius % 4 == 0 && kTile % 4 == 0,
              "16-byte chunks: a tile's halo and body must be whole float4s");
static_assert(kGroupsPerThread * 4 * kThreads == kTile, "the tile must split evenly over threads");

__host__ __device__ constexpr float tap(int k) {
  return static_cast<float>(kRadius + 1 - (k < kRadius ? kRadius - k : k - kRadius)) / 1024.0f;
}

// Input index of 16-byte chunk c of tile t's stage; the chunk is wholly inside [0, kCount) or
// wholly outside (then the stage holds zeros there).
__device__ __forceinline__ long long chunk_source(int tile, int c) {
  return static_cast<long long>(tile) * kTile - kRadius + 4LL * c;
}
__device__ __forceinline__ bool chunk_inside(long long first) {
  return first >= 0 && first < static_cast<long long>(kCount);
}

// Outputs o..o+3 of a tile from its stage (stage[s] = in[tile start - kRadius + s]): output o + e
// needs stage[o + e + k] for k = 0..48, all within the 13 float4s from stage[o]. Each output is
// summed in ascending k, one FMA per tap; the taps are compile-time constants (FFMA immediates).
__device__ __forceinline__ float4 stencil4(const float* __restrict__ stage, int o) {
  const auto* window = reinterpret_cast<const float4*>(stage + o);
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int c = 0; c < kWindowVecs; ++c) {
    const float4 v = window[c];
    const float x[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int m = 0; m < 4; ++m) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int k = 4 * c + m - e;
        if (k >= 0 && k < kTaps)
          acc[e] = fmaf(tap(k), x[m], acc[e]);
      }
    }
  }
  return make_float4(acc[0], acc[1], acc[2], acc[3]);
}

// The compute phase of one tile, the same in both variants: thread t computes groups
// t, t + 1024, t + 2048, t + 3072 (lanes 16 bytes apart: conflict-free shared loads, 512-byte
// coalesced stores per warp).
__device__ __forceinline__ void filter_tile(const float* __restrict__ stage, int tile,
                                            float* __restrict__ out) {
  auto* out4 = reinterpret_cast<float4*>(out + static_cast<std::size_t>(tile) * kTile);
#pragma unroll 1
  for (int q = 0; q < kGroupsPerThread; ++q) {
    const int group = static_cast<int>(threadIdx.x) + q * kThreads;
    out4[group] = stencil4(stage, 4 * group);
  }
}

}  // namespace filter1d

class CpAsyncPipelineProblem : public aisp::Benchmark {
 public:
  aisp::Signature signature() const override {
    aisp::Signature s;
    s.set("elements", filter1d::kCount).set("taps", filter1d::kTaps);
    s.set("tile", filter1d::kTile).set("boundary", "zero").set("dtype", aisp::DType::f32);
    return s;
  }

  void setup(aisp::Context& ctx) override {
    in_ = ctx.alloc("in", aisp::DType::f32, filter1d::kCount, aisp::Role::input);
    out_ = ctx.alloc("out", aisp::DType::f32, filter1d::kCount, aisp::Role::output);
    ctx.fill_uniform(in_);
    sm_count_ = ctx.device_properties().multiProcessorCount;
    if (reinterpret_cast<std::uintptr_t>(in_.data()) % 16 != 0 ||
        reinterpret_cast<std::uintptr_t>(out_.data()) % 16 != 0)
      throw std::invalid_argument("cp_async_pipeline: in and out must be 16-byte aligned");
  }

  std::vector<aisp::Tensor> outputs() const override { return {out_}; }

  aisp::Workload workload() const override {
    aisp::Workload w;
    w.bytes = 2.0 * static_cast<double>(filter1d::kCount) * sizeof(float);  // read + written once
    w.flops = 2.0 * filter1d::kTaps * static_cast<double>(filter1d::kCount);
    w.memory_ceiling = aisp::Ceiling::hbm_bandwidth;
    w.compute_ceiling = aisp::Ceiling::fp32_simt;
    return w;
  }

 protected:
  const float* in() const { return in_.as<const float>(); }
  float* out() const { return out_.as<float>(); }
  // Persistent grid: one block per SM, each walking tiles blockIdx.x, + gridDim.x, ...
  unsigned grid() const { return static_cast<unsigned>(sm_count_); }

 private:
  aisp::Tensor in_, out_;
  int sm_count_ = 0;
};

}  // namespace aisp::ch07
