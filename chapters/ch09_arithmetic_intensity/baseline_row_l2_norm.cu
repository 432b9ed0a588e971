// Baseline: the row-wise L2 normalization as four kernels, the way an eager framework evaluates
// `x / x.pow(2).sum(-1, keepdim=True).sqrt().clamp_min(eps)`:
//   1. square:       q = x · x                      reads x, writes q (the whole matrix each)
//   2. row_sum:      s[r] = sum of q[r][:]            reads q, writes one float per row
//   3. inverse_norm: n[r] = 1 / max(sqrt(s[r]), eps)  one float per row in and out
//   4. scale_rows:   y = x · n[r]                     reads x (and n), writes y
// Every kernel is a good memory-bound kernel (float4, one pass, loads issued before use); the
// matrix still crosses HBM five times: 1.25 GiB for 512 MiB of necessary traffic.
// Bytes (declared, the problem's minimum): 512 MiB; moved: 1.25 GiB + 64 KiB. FLOPs: 3 · 2^26.
// Ceiling: HBM bandwidth.
#include "row_l2_norm_common.cuh"

namespace aisp::ch09 {
namespace {

using Problem = RowL2NormProblem;

// Elementwise kernels: one pass, two float4 per thread.
constexpr int kElementwiseThreads = 256;
constexpr int kElementwiseVecs = 2;
constexpr std::size_t kElementwiseVecsPerBlock =
    std::size_t{kElementwiseThreads} * kElementwiseVecs;
static_assert(Problem::kCount / 4 % kElementwiseVecsPerBlock == 0, "whole blocks only");
constexpr unsigned kElementwiseBlocks =
    static_cast<unsigned>(Problem::kCount / 4 / kElementwiseVecsPerBlock);
constexpr int kVecsPerRow = Problem::kCols / 4;

__global__ void __launch_bounds__(kElementwiseThreads)
    square(const float4* __restrict__ x, float4* __restrict__ q) {
  const std::size_t base = blockIdx.x * kElementwiseVecsPerBlock + threadIdx.x;
  float4 v[kElementwiseVecs];
#pragma unroll
  for (int u = 0; u < kElementwiseVecs; ++u)
    v[u] = x[base + u * kElementwiseThreads];
#pragma unroll
  for (int u = 0; u < kElementwiseVecs; ++u)
    q[base + u * kElementwiseThreads] =
        make_float4(v[u].x * v[u].x, v[u].y * v[u].y, v[u].z * v[u].z, v[u].w * v[u].w);
}

// One block per row, the same per-thread partials and block sum as the fused kernel.
__global__ void __launch_bounds__(Problem::kRowThreads)
    row_sum(const float4* __restrict__ q, float* __restrict__ sums) {
  const float4* row = q + static_cast<std::size_t>(blockIdx.x) * kVecsPerRow + threadIdx.x;
  float4 v[Problem::kVecsPerRowThread];
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerRowThread; ++u)
    v[u] = row[u * Problem::kRowThreads];
  float partial = 0.0f;
#pragma unroll
  for (int u = 0; u < Problem::kVecsPerRowThread; ++u)
    partial += (v[u].x + v[u].y) + (v[u].z + v[u].w);
  const float total = block_sum_all<Problem::kRowThreads>(partial);
  if (threadIdx.x == 0)
    sums[blockIdx.x] = total;
}

__global__ void inverse_norm(const float* __restrict__ sums, float* __restrict__ inverse,
                             int rows) {
  const int r = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (r < rows)
    inverse[r] = 1.0f / fmaxf(sqrtf(sums[r]), Problem::kEps);
}

__global__ void __launch_bounds__(kElementwiseThreads)
    scale_rows(const float4* __restrict__ x, const float* __restrict__ inverse,
               float4* __restrict__ y) {
  const std::size_t base = blockIdx.x * kElementwiseVecsPerBlock + threadIdx.x;
  float4 v[kElementwiseVecs];
  float n[kElementwiseVecs];
#pragma unroll
  for (int u = 0; u < kElementwiseVecs; ++u) {
    const std::size_t i = base + u * kElementwiseThreads;
    v[u] = x[i];
    n[u] = inverse[i / kVecsPerRow];  // a few distinct rows per block: served by L1
  }
#pragma unroll
  for (int u = 0; u < kElementwiseVecs; ++u)
    y[base + u * kElementwiseThreads] =
        make_float4(v[u].x * n[u], v[u].y * n[u], v[u].z * n[u], v[u].w * n[u]);
}

}  // namespace

struct RowL2NormFourKernels : RowL2NormProblem {
  void setup(aisp::Context& ctx) override {
    RowL2NormProblem::setup(ctx);
    squares_ = ctx.alloc("x_squared", aisp::DType::f32, kCount, aisp::Role::scratch);
    sums_ = ctx.alloc("row_sum_squares", aisp::DType::f32, kRows, aisp::Role::scratch);
    inverse_ = ctx.alloc("row_inverse_norm", aisp::DType::f32, kRows, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    square<<<kElementwiseBlocks, kElementwiseThreads, 0, ctx.stream()>>>(x4(),
                                                                         squares_.as<float4>());
    AISP_CHECK_LAUNCH();
    row_sum<<<kRows, kRowThreads, 0, ctx.stream()>>>(squares_.as<const float4>(),
                                                     sums_.as<float>());
    AISP_CHECK_LAUNCH();
    inverse_norm<<<(kRows + 255) / 256, 256, 0, ctx.stream()>>>(sums_.as<const float>(),
                                                                inverse_.as<float>(), kRows);
    AISP_CHECK_LAUNCH();
    scale_rows<<<kElementwiseBlocks, kElementwiseThreads, 0, ctx.stream()>>>(
        x4(), inverse_.as<const float>(), y4());
    AISP_CHECK_LAUNCH();
  }

 private:
  aisp::Tensor squares_, sums_, inverse_;
};

}  // namespace aisp::ch09

AISP_VARIANT(aisp::ch09::RowL2NormFourKernels)
