// The mixing function shared by the host and device content hashes (SplitMix64's finalizer).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define AISP_HOST_DEVICE __host__ __device__
#else
#define AISP_HOST_DEVICE
#endif

namespace aisp::detail {

AISP_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

AISP_HOST_DEVICE inline std::uint64_t word_term(std::uint64_t word, std::uint64_t index) {
  return mix64(word + mix64(index + 0x9E3779B97F4A7C15ull));
}

}  // namespace aisp::detail

#undef AISP_HOST_DEVICE
