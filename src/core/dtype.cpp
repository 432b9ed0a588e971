#include "aisp/dtype.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace aisp {
namespace {

struct DTypeRow {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool floating;
};

constexpr std::array kDTypes{
    DTypeRow{DType::f64, "f64", 8, true},          DTypeRow{DType::f32, "f32", 4, true},
    DTypeRow{DType::f16, "f16", 2, true},          DTypeRow{DType::bf16, "bf16", 2, true},
    DTypeRow{DType::fp8_e4m3, "fp8_e4m3", 1, true}, DTypeRow{DType::fp8_e5m2, "fp8_e5m2", 1, true},
    DTypeRow{DType::i64, "i64", 8, false},         DTypeRow{DType::i32, "i32", 4, false},
    DTypeRow{DType::i8, "i8", 1, false},           DTypeRow{DType::u64, "u64", 8, false},
    DTypeRow{DType::u32, "u32", 4, false},         DTypeRow{DType::u8, "u8", 1, false},
};

const DTypeRow& row(DType dtype) {
  for (const auto& r : kDTypes)
    if (r.dtype == dtype) return r;
  throw std::logic_error("unknown DType value " + std::to_string(static_cast<int>(dtype)));
}

}  // namespace

std::size_t dtype_size(DType dtype) { return row(dtype).size; }
std::string_view dtype_name(DType dtype) { return row(dtype).name; }
bool dtype_is_floating(DType dtype) { return row(dtype).floating; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& r : kDTypes)
    if (r.name == name) return r.dtype;
  return std::nullopt;
}

}  // namespace aisp
