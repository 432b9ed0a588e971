// The per-token loop (the MoE ladder's baseline): for each token, its k experts as GEMVs — two
// launches per token, 2·tokens in all, on the stream one after the other.
//   token_gate_up_swiglu: one warp per (slot j, row i): the dot products of x_t with row i of
//     the expert's gate and up matrices, 16-byte loads, fp32 sums; h = silu(g)·u rounded to bf16.
//   token_down_combine: one warp per output column c: Σ_j weight_j · (h_j · W2_{e_j}[c]).
// Each launch streams its experts' weights from HBM once: k·3·hidden·inter·2 bytes per token
// (541 MB at 8 experts top-2, 4096 × 11008; 554 MB at 64 top-8, 4096 × 2816), a GEMV's honest
// cost — no weight is reused across tokens because each token is its own launch and an expert
// (270 MB) does not fit the 60 MiB L2. Bytes per token / HBM bandwidth is this loop's floor; its
// FLOPs (2 per weight element read) are negligible against any tensor-core ceiling.
#include <cstddef>

#include "moe_bf16x8.cuh"
#include "moe_layer_kernels.cuh"

namespace aisp::ch17 {
namespace {

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;

__global__ void __launch_bounds__(kThreads)
    token_gate_up_swiglu(const __nv_bfloat16* __restrict__ x_row,
                         const __nv_bfloat16* __restrict__ w13,
                         const int* __restrict__ token_experts, int hidden, int intermediate,
                         __nv_bfloat16* __restrict__ h_token) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int i = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
  const int j = static_cast<int>(blockIdx.y);
  if (i >= intermediate)
    return;
  const std::size_t inter = static_cast<std::size_t>(intermediate);
  const std::size_t gate_row = static_cast<std::size_t>(token_experts[j]) * 2 * inter + i;
  const auto* gate = reinterpret_cast<const uint4*>(w13 + gate_row * hidden);
  const auto* up = reinterpret_cast<const uint4*>(w13 + (gate_row + inter) * hidden);
  const auto* x = reinterpret_cast<const uint4*>(x_row);
  float g = 0.0f, u = 0.0f;
  const int chunks = hidden / 8;
#pragma unroll 4
  for (int c = lane; c < chunks; c += 32) {
    const uint4 xv = x[c];
    g = dot_bf16x8(xv, gate[c], g);
    u = dot_bf16x8(xv, up[c], u);
  }
  g = warp_sum(g);
  u = warp_sum(u);
  if (lane == 0)
    h_token[static_cast<std::size_t>(j) * inter + i] = __float2bfloat16(silu_times(g, u));
}

__global__ void __launch_bounds__(kThreads)
    token_down_combine(const __nv_bfloat16* __restrict__ h_token,
                       const __nv_bfloat16* __restrict__ w2, const int* __restrict__ token_experts,
                       const float* __restrict__ token_weights, int top_k, int hidden,
                       int intermediate, __nv_bfloat16* __restrict__ y_row) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int c = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
  if (c >= hidden)
    return;
  const std::size_t inter = static_cast<std::size_t>(intermediate);
  const int chunks = intermediate / 8;
  float y = 0.0f;
  for (int j = 0; j < top_k; ++j) {
    const std::size_t row = static_cast<std::size_t>(token_experts[j]) * hidden + c;
    const auto* w = reinterpret_cast<const uint4*>(w2 + row * inter);
    const auto* h = reinterpret_cast<const uint4*>(h_token + static_cast<std::size_t>(j) * inter);
    float o = 0.0f;
#pragma unroll 4
    for (int q = lane; q < chunks; q += 32)
      o = dot_bf16x8(h[q], w[q], o);
    y += token_weights[j] * warp_sum(o);
  }
  if (lane == 0)
    y_row[c] = __float2bfloat16(y);
}

}  // namespace

cudaError_t launch_token_gate_up_swiglu(const __nv_bfloat16* x_row, const __nv_bfloat16* w13,
                                        const int* token_experts, int top_k, int hidden,
                                        int intermediate, __nv_bfloat16* h_token,
                                        cudaStream_t stream) {
  if (hidden % 8 != 0 || intermediate < 1 || top_k < 1)
    return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>((intermediate + kWarps - 1) / kWarps),
                  static_cast<unsigned>(top_k));
  token_gate_up_swiglu<<<grid, kThreads, 0, stream>>>(x_row, w13, token_experts, hidden,
                                                      intermediate, h_token);
  return cudaGetLastError();
}

cudaError_t launch_token_down_combine(const __nv_bfloat16* h_token, const __nv_bfloat16* w2,
                                      const int* token_experts, const float* token_weights,
                                      int top_k, int hidden, int intermediate, __nv_bfloat16* y_row,
                                      cudaStream_t stream) {
  if (intermediate % 8 != 0 || hidden < 1 || top_k < 1)
    return cudaErrorInvalidValue;
  token_down_combine<<<static_cast<unsigned>((hidden + kWarps - 1) / kWarps), kThreads, 0,
                       stream>>>(h_token, w2, token_experts, token_weights, top_k, hidden,
                                 intermediate, y_row);
  return cudaGetLastError();
}

}  // namespace aisp::ch17
