// The 32-bit shared-memory address PTX instructions take ([addr] operands of ldmatrix, cp.async,
// mbarrier, cp.async.bulk, wgmma descriptors), from a generic pointer into shared memory.
// Shared by every PTX wrapper in chapters/common.
#pragma once

#include <cstdint>

namespace aisp::common {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace aisp::common
