#include "core/element_decoding.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace aisp {
namespace {

template <class T> T load(const unsigned char* bytes, std::size_t index) {
  T value;
  std::memcpy(&value, bytes + index * sizeof(T), sizeof(T));
  return value;
}

// A small float with `exponent_bits`, `mantissa_bits` and IEEE-like subnormals. `ieee_special`
// says whether an all-ones exponent means Inf/NaN (f16, bf16, e5m2); e4m3 has no Inf and only
// S.1111.111 is NaN.
double decode_minifloat(std::uint32_t bits, int exponent_bits, int mantissa_bits, bool ieee_special) {
  const std::uint32_t sign = (bits >> (exponent_bits + mantissa_bits)) & 1u;
  const std::uint32_t exponent = (bits >> mantissa_bits) & ((1u << exponent_bits) - 1u);
  const std::uint32_t mantissa = bits & ((1u << mantissa_bits) - 1u);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const std::uint32_t max_exponent = (1u << exponent_bits) - 1u;
  double magnitude;
  if (ieee_special && exponent == max_exponent) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else if (!ieee_special && exponent == max_exponent && mantissa == (1u << mantissa_bits) - 1u) {
    magnitude = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (1u << mantissa_bits)),
                           static_cast<int>(exponent) - bias - mantissa_bits);
  }
  return sign ? -magnitude : magnitude;
}

}  // namespace

double decode_element(DType dtype, const unsigned char* bytes, std::size_t index) {
  switch (dtype) {
  case DType::f64: return load<double>(bytes, index);
  case DType::f32: return load<float>(bytes, index);
  case DType::f16: return decode_minifloat(load<std::uint16_t>(bytes, index), 5, 10, true);
  case DType::bf16: {
    const std::uint32_t widened = static_cast<std::uint32_t>(load<std::uint16_t>(bytes, index)) << 16;
    float value;
    std::memcpy(&value, &widened, sizeof(value));
    return value;
  }
  case DType::fp8_e4m3: return decode_minifloat(bytes[index], 4, 3, false);
  case DType::fp8_e5m2: return decode_minifloat(bytes[index], 5, 2, true);
  case DType::i64: return static_cast<double>(load<std::int64_t>(bytes, index));
  case DType::i32: return load<std::int32_t>(bytes, index);
  case DType::i8: return load<std::int8_t>(bytes, index);
  case DType::u64: return static_cast<double>(load<std::uint64_t>(bytes, index));
  case DType::u32: return load<std::uint32_t>(bytes, index);
  case DType::u8: return bytes[index];
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace aisp
