// Counter-based random values: a pure function of (seed, stream id, index), identical on host and
// device, so inputs do not depend on where or in which order they are generated.
#pragma once

#include <cstdint>

namespace aisp::detail {

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  // splitmix64 finalizer: a bijective avalanche mix.
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 53 random bits.
__host__ __device__ inline double unit_uniform(std::uint64_t key, std::uint64_t index) {
  return static_cast<double>(mix64(key ^ mix64(index)) >> 11) * 0x1.0p-53;
}

// FNV-1a of a name: tensors of different names draw different streams.
inline std::uint64_t name_hash(const char* text, std::size_t length) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::size_t i = 0; i < length; ++i) {
    h ^= static_cast<unsigned char>(text[i]);
    h *= 0x100000001B3ull;
  }
  return h;
}

}  // namespace aisp::detail
