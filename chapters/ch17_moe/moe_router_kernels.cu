// The router as three kernels (moe_router_kernels.cuh): top-k, softmax, histogram — what a
// framework's topk(), softmax() and bincount() launch: a warp per token (top-k), a thread per
// token (softmax over its k), a thread per id (histogram). Between them the selected logits and
// the ids go to memory and back. Bytes: logits read (tokens·experts·4), ids and selected logits
// written and read back (4·tokens·top_k·4 in all), weights written (tokens·top_k·4), against the
// fused router's tokens·experts·4 + 2·tokens·top_k·4; and three launches plus a memset instead of
// one plus a memset. Ceiling: HBM bandwidth.
#include <climits>
#include <cmath>
#include <cstddef>

#include "../common/moe_shape.hpp"
#include "../common/moe_warp_top_k.cuh"
#include "moe_router_kernels.cuh"

namespace aisp::ch17 {
namespace {

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / 32;
constexpr int kPerLane = common::kMoeMaxExperts / 32;

unsigned token_blocks(int tokens) {
  const int blocks = (tokens + kWarpsPerBlock - 1) / kWarpsPerBlock;
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
}

__global__ void __launch_bounds__(kThreads)
    router_topk(const float* __restrict__ logits, int tokens, int experts, int top_k,
                int* __restrict__ topk_ids, float* __restrict__ topk_logits) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (int t = static_cast<int>(blockIdx.x) * kWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
       t < tokens; t += static_cast<int>(gridDim.x) * kWarpsPerBlock) {
    const float* row = logits + static_cast<std::size_t>(t) * experts;
    float value[kPerLane];
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int e = lane + 32 * i;
      value[i] = e < experts ? row[e] : -INFINITY;
    }
    float my_value = 0.0f;
    int my_expert = 0;
    common::warp_top_k(value, experts, top_k, lane, [&](int j, float logit, int expert) {
      if (lane == j) {
        my_value = logit;
        my_expert = expert;
      }
    });
    if (lane < top_k) {
      const std::size_t slot = static_cast<std::size_t>(t) * top_k + lane;
      topk_ids[slot] = my_expert;
      topk_logits[slot] = my_value;
    }
  }
}

// One thread per token: the softmax of its k selected logits (slot 0 holds the largest), in the
// fused router's order of operations.
__global__ void __launch_bounds__(kThreads)
    router_softmax(const float* __restrict__ topk_logits, int tokens, int top_k,
                   float* __restrict__ topk_weights) {
  for (int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); t < tokens;
       t += static_cast<int>(gridDim.x * blockDim.x)) {
    const float* row = topk_logits + static_cast<std::size_t>(t) * top_k;
    const float top = row[0];
    float sum = 0.0f;
    for (int j = 0; j < top_k; ++j)
      sum += expf(row[j] - top);
    float* out = topk_weights + static_cast<std::size_t>(t) * top_k;
    for (int j = 0; j < top_k; ++j)
      out[j] = expf(row[j] - top) / sum;
  }
}

__global__ void __launch_bounds__(kThreads)
    router_histogram(const int* __restrict__ topk_ids, int assignments, int experts,
                     int* __restrict__ expert_counts) {
  __shared__ int histogram[common::kMoeMaxExperts];
  for (int e = static_cast<int>(threadIdx.x); e < experts; e += kThreads)
    histogram[e] = 0;
  __syncthreads();
  for (int a = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); a < assignments;
       a += static_cast<int>(gridDim.x * blockDim.x))
    atomicAdd(&histogram[topk_ids[a]], 1);
  __syncthreads();
  for (int e = static_cast<int>(threadIdx.x); e < experts; e += kThreads)
    if (histogram[e] != 0)
      atomicAdd(&expert_counts[e], histogram[e]);
}

}  // namespace

cudaError_t launch_router_topk(const float* logits, int tokens, int experts, int top_k,
                               int* topk_ids, float* topk_logits, cudaStream_t stream) {
  if (experts < 1 || experts > common::kMoeMaxExperts || top_k < 1 || top_k > experts ||
      top_k > common::kMoeMaxTopK)
    return cudaErrorInvalidValue;
  router_topk<<<token_blocks(tokens), kThreads, 0, stream>>>(logits, tokens, experts, top_k,
                                                             topk_ids, topk_logits);
  return cudaGetLastError();
}

cudaError_t launch_router_softmax(const float* topk_logits, int tokens, int top_k,
                                  float* topk_weights, cudaStream_t stream) {
  const int needed = (tokens + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(needed < 1 ? 1 : (needed > 4096 ? 4096 : needed));
  router_softmax<<<blocks, kThreads, 0, stream>>>(topk_logits, tokens, top_k, topk_weights);
  return cudaGetLastError();
}

cudaError_t launch_router_histogram(const int* topk_ids, int assignments, int experts,
                                    int* expert_counts, cudaStream_t stream) {
  if (experts < 1 || experts > common::kMoeMaxExperts)
    return cudaErrorInvalidValue;
  const cudaError_t cleared =
      cudaMemsetAsync(expert_counts, 0, sizeof(int) * static_cast<std::size_t>(experts), stream);
  if (cleared != cudaSuccess)
    return cleared;
  const int needed = (assignments + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(needed < 1 ? 1 : (needed > 1024 ? 1024 : needed));
  router_histogram<<<blocks, kThreads, 0, stream>>>(topk_ids, assignments, experts, expert_counts);
  return cudaGetLastError();
}

}  // namespace aisp::ch17
