// Deterministic uniform fills for any dtype and memory kind: the values depend only on the key
// and the element index, so host and device fills of the same key agree bit for bit.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "aisp/dtype.hpp"

namespace aisp::detail {

// Device (or managed) memory: enqueued on `stream`, then synchronized.
void fill_uniform_device(DType dtype, void* data, std::size_t count, std::uint64_t key, double lo,
                         double hi, cudaStream_t stream);
// Host memory: up to `threads` host threads.
void fill_uniform_host(DType dtype, void* data, std::size_t count, std::uint64_t key, double lo,
                       double hi, int threads);
void fill_int_device(DType dtype, void* data, std::size_t count, std::uint64_t key,
                     std::int64_t lo, std::int64_t hi, cudaStream_t stream);
void fill_int_host(DType dtype, void* data, std::size_t count, std::uint64_t key, std::int64_t lo,
                   std::int64_t hi, int threads);

std::uint64_t fill_key(std::uint64_t seed, const char* name, std::size_t name_length);

}  // namespace aisp::detail
