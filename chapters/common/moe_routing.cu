// MoE routing kernels (moe_routing.cuh): synthetic logits, the fused router, and the dispatch by
// expert (CUB's radix sort, a prefix sum, an inverse permutation). All of them move a few MB at
// 8192 tokens: they are here to be correct and simple; chapter 17's router pair measures the one
// that matters (separate softmax/top-k/histogram kernels against the fused one).
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <climits>
#include <cmath>
#include <cstddef>

#include "moe_routing.cuh"
#include "moe_warp_top_k.cuh"

namespace aisp::common {
namespace {

constexpr int kRouterThreads = 256;
constexpr int kRouterWarpsPerBlock = kRouterThreads / 32;
constexpr int kRouterMaxBlocks = 1024;  // a block adds its histogram once: bounds the atomics
constexpr int kLogitsPerLane = kMoeMaxExperts / 32;

__global__ void moe_logits_from_uniform(float* __restrict__ logits, std::size_t count, int experts,
                                        int zipf, float exponent) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const int e = static_cast<int>(i % static_cast<std::size_t>(experts));
    const float log_prior = zipf ? -exponent * logf(static_cast<float>(e + 1)) : 0.0f;
    logits[i] = log_prior - logf(-logf(logits[i]));  // u in (0, 1): -log(u) > 0
  }
}

// One warp per token (grid-stride over tokens): the slots by warp_top_k (moe_warp_top_k.cuh), the
// softmax over them kept as they are picked, and a block histogram of the experts.
__global__ void __launch_bounds__(kRouterThreads)
    moe_route_fused(const float* __restrict__ logits, int tokens, int experts, int top_k,
                    int* __restrict__ topk_ids, float* __restrict__ topk_weights,
                    int* __restrict__ expert_counts) {
  __shared__ int histogram[kMoeMaxExperts];
  for (int e = static_cast<int>(threadIdx.x); e < experts; e += kRouterThreads)
    histogram[e] = 0;
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warps = static_cast<int>(gridDim.x) * kRouterWarpsPerBlock;
  for (int t =
           static_cast<int>(blockIdx.x) * kRouterWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
       t < tokens; t += warps) {
    const float* row = logits + static_cast<std::size_t>(t) * experts;
    float value[kLogitsPerLane];
#pragma unroll
    for (int i = 0; i < kLogitsPerLane; ++i) {
      const int e = lane + 32 * i;
      value[i] = e < experts ? row[e] : -INFINITY;
    }
    float top = 0.0f, sum = 0.0f, my_logit = 0.0f;
    int my_expert = 0;
    warp_top_k(value, experts, top_k, lane, [&](int j, float logit, int expert) {
      if (j == 0)
        top = logit;
      sum += expf(logit - top);  // every lane sums the same values in the same order
      if (lane == j) {
        my_logit = logit;
        my_expert = expert;
      }
    });
    if (lane < top_k) {
      const std::size_t slot = static_cast<std::size_t>(t) * top_k + lane;
      topk_ids[slot] = my_expert;
      topk_weights[slot] = expf(my_logit - top) / sum;
      atomicAdd(&histogram[my_expert], 1);
    }
  }
  __syncthreads();
  for (int e = static_cast<int>(threadIdx.x); e < experts; e += kRouterThreads)
    if (histogram[e] != 0)
      atomicAdd(&expert_counts[e], histogram[e]);
}

__global__ void moe_iota(int* __restrict__ iota, int count) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count;
       i += static_cast<int>(gridDim.x * blockDim.x))
    iota[i] = i;
}

constexpr int kOffsetsThreads = kMoeMaxExperts;

__global__ void __launch_bounds__(kOffsetsThreads)
    moe_expert_offsets(const int* __restrict__ counts, int experts, int* __restrict__ offsets) {
  using Scan = cub::BlockScan<int, kOffsetsThreads>;
  __shared__ typename Scan::TempStorage scratch;
  const int e = static_cast<int>(threadIdx.x);
  const int count = e < experts ? counts[e] : 0;
  int first = 0, total = 0;
  Scan(scratch).ExclusiveSum(count, first, total);
  if (e < experts)
    offsets[e] = first;
  if (e == 0)
    offsets[experts] = total;
}

__global__ void moe_inverse_permutation(const int* __restrict__ sorted_rows, int count,
                                        int* __restrict__ position) {
  for (int r = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); r < count;
       r += static_cast<int>(gridDim.x * blockDim.x))
    position[sorted_rows[r]] = r;
}

int expert_bits(int experts) {
  int bits = 1;
  while ((1 << bits) < experts)
    ++bits;
  return bits;
}

unsigned elementwise_blocks(std::size_t count, unsigned threads) {
  const std::size_t blocks = (count + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

}  // namespace

cudaError_t launch_moe_logits_from_uniform(float* logits, int tokens, int experts,
                                           MoeRouting routing, double zipf_exponent,
                                           cudaStream_t stream) {
  const std::size_t count = static_cast<std::size_t>(tokens) * static_cast<std::size_t>(experts);
  moe_logits_from_uniform<<<elementwise_blocks(count, 256), 256, 0, stream>>>(
      logits, count, experts, routing == MoeRouting::zipf ? 1 : 0,
      static_cast<float>(zipf_exponent));
  return cudaGetLastError();
}

cudaError_t launch_moe_route_fused(const float* logits, int tokens, int experts, int top_k,
                                   int* topk_ids, float* topk_weights, int* expert_counts,
                                   cudaStream_t stream) {
  if (experts < 1 || experts > kMoeMaxExperts || top_k < 1 || top_k > experts ||
      top_k > kMoeMaxTopK || tokens < 1)
    return cudaErrorInvalidValue;
  const cudaError_t cleared =
      cudaMemsetAsync(expert_counts, 0, sizeof(int) * static_cast<std::size_t>(experts), stream);
  if (cleared != cudaSuccess)
    return cleared;
  const int needed = (tokens + kRouterWarpsPerBlock - 1) / kRouterWarpsPerBlock;
  const unsigned blocks =
      static_cast<unsigned>(needed < kRouterMaxBlocks ? needed : kRouterMaxBlocks);
  moe_route_fused<<<blocks, kRouterThreads, 0, stream>>>(logits, tokens, experts, top_k, topk_ids,
                                                         topk_weights, expert_counts);
  return cudaGetLastError();
}

std::size_t moe_sort_temp_bytes(int assignments, int experts) {
  std::size_t bytes = 0;
  const cudaError_t status = cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
      static_cast<const int*>(nullptr), static_cast<int*>(nullptr), assignments, 0,
      expert_bits(experts));
  return status == cudaSuccess ? bytes : 0;
}

cudaError_t launch_moe_iota(int* iota, int count, cudaStream_t stream) {
  moe_iota<<<elementwise_blocks(static_cast<std::size_t>(count), 256), 256, 0, stream>>>(iota,
                                                                                         count);
  return cudaGetLastError();
}

cudaError_t launch_moe_sort_by_expert(const int* topk_ids, const int* iota, int assignments,
                                      int experts, void* temp, std::size_t temp_bytes,
                                      int* sorted_experts, int* sorted_rows, cudaStream_t stream) {
  std::size_t bytes = temp_bytes;
  return cub::DeviceRadixSort::SortPairs(temp, bytes, topk_ids, sorted_experts, iota, sorted_rows,
                                         assignments, 0, expert_bits(experts), stream);
}

cudaError_t launch_moe_expert_offsets(const int* expert_counts, int experts, int* expert_offsets,
                                      cudaStream_t stream) {
  if (experts < 1 || experts > kOffsetsThreads)
    return cudaErrorInvalidValue;
  moe_expert_offsets<<<1, kOffsetsThreads, 0, stream>>>(expert_counts, experts, expert_offsets);
  return cudaGetLastError();
}

cudaError_t launch_moe_inverse_permutation(const int* sorted_rows, int assignments, int* position,
                                           cudaStream_t stream) {
  moe_inverse_permutation<<<elementwise_blocks(static_cast<std::size_t>(assignments), 256), 256, 0,
                            stream>>>(sorted_rows, assignments, position);
  return cudaGetLastError();
}

}  // namespace aisp::common
