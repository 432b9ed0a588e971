// Reads the raw bytes of any DType element as a double on the host (f16, bf16 and fp8 decoded
// from their bit layouts), so verification compares every dtype the same way.
#pragma once

#include <cstddef>

#include "aisp/dtype.hpp"

namespace aisp {

double decode_element(DType dtype, const unsigned char* bytes, std::size_t index);

}  // namespace aisp
