// Seeds the variants under test cannot read: drawn from the operating system's entropy at the
// moment a check needs one, never derived from the run's --seed or the context's seed(). Where
// the precision check samples its elements, and which timed call is checked, must not be
// knowable from the source (docs/integrity.md).
#pragma once

#include <cstdint>
#include <random>

namespace aisp {

inline std::uint64_t draw_secret_seed() {
  std::random_device entropy;
  const std::uint64_t high = entropy();
  return (high << 32) ^ entropy();
}

}  // namespace aisp
