// Dynamic shared memory aligned for swizzled TMA tiles and wgmma descriptors, which need their
// tiles 1024-byte aligned (a 128B-swizzle pattern repeats every 8 rows of 128 bytes, and the
// hardware takes the pattern's phase from the address). The dynamic shared-memory window is only
// guaranteed 16-byte alignment, so a kernel asks for kSharedAlignmentSlack more bytes than its
// layout needs and starts its layout at align_shared_1024(window).
#pragma once

#include <cstdint>

#include "shared_address.cuh"

namespace aisp::common {

constexpr unsigned kSharedAlignmentSlack = 1024;

__device__ __forceinline__ std::uint8_t* align_shared_1024(std::uint8_t* window) {
  const std::uint32_t address = shared_address(window);
  return window + ((1024 - (address % 1024)) % 1024);
}

}  // namespace aisp::common
