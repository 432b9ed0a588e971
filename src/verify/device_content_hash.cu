// The device form of content_hash.hpp's hash: a grid-stride pass over 8-byte words, a warp sum,
// one atomic add per warp into a process-wide accumulator.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "aisp/check.hpp"
#include "verify/content_hash.hpp"
#include "verify/content_hash_mix.hpp"

namespace aisp {
namespace {

__global__ void hash_words(const unsigned long long* words, std::size_t count,
                           unsigned long long* sum) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += detail::word_term(words[i], i);
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(0xFFFFFFFFu, local, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, local);
}

// One 8-byte accumulator per process, allocated on first use (before any run() it could be
// mistaken for), never freed: the worker process ends with the pair.
unsigned long long* accumulator() {
  static unsigned long long* sum = [] {
    unsigned long long* p = nullptr;
    AISP_CUDA_CHECK(cudaMalloc(&p, sizeof(*p)));
    return p;
  }();
  return sum;
}

}  // namespace

std::uint64_t device_content_hash(const void* data, std::size_t bytes, cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(data) % 8 != 0)
    throw std::invalid_argument("device_content_hash: address " +
                                std::to_string(reinterpret_cast<std::uintptr_t>(data)) +
                                " is not 8-byte aligned");
  const std::size_t words = bytes / 8;
  unsigned long long* sum = accumulator();
  AISP_CUDA_CHECK(cudaMemsetAsync(sum, 0, sizeof(*sum), stream));
  if (words > 0) {
    int device = 0, sms = 0;
    AISP_CUDA_CHECK(cudaGetDevice(&device));
    AISP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    constexpr int kThreads = 256;
    const std::size_t wanted = (words + kThreads - 1) / kThreads;
    const int blocks = static_cast<int>(std::min<std::size_t>(wanted, std::size_t{8} * sms));
    hash_words<<<blocks, kThreads, 0, stream>>>(static_cast<const unsigned long long*>(data),
                                                words, sum);
    AISP_CHECK_LAUNCH();
  }
  unsigned long long hash = 0;
  AISP_CUDA_CHECK(cudaMemcpyAsync(&hash, sum, sizeof(hash), cudaMemcpyDeviceToHost, stream));
  std::uint64_t tail_word = 0;
  if (const std::size_t tail = bytes % 8; tail != 0)
    AISP_CUDA_CHECK(cudaMemcpyAsync(&tail_word, static_cast<const unsigned char*>(data) + words * 8,
                                    tail, cudaMemcpyDeviceToHost, stream));
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bytes % 8 != 0) hash += detail::word_term(tail_word, words);
  return hash;
}

}  // namespace aisp
