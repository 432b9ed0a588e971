// 64-bit content hashes of tensors, to tell whether run() changed an input. Both forms compute
// the same function: the sum (mod 2^64) over 8-byte words w_i of mix(w_i + mix(i)), the last
// word zero-padded. A sum is order-free, so chunks and GPU threads add their parts in any
// order, while the index inside the mix makes swapped or moved words change it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace aisp {

// Hashes host memory in place, in parallel over the host's cores.
std::uint64_t host_content_hash(std::span<const unsigned char> bytes);

// Hashes device or managed memory on the GPU (one pass at memory bandwidth instead of a copy to
// the host): enqueued on `stream`, which is synchronized before it returns.
std::uint64_t device_content_hash(const void* data, std::size_t bytes, cudaStream_t stream);

}  // namespace aisp
