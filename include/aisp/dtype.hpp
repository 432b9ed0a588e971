// Element types a benchmark's tensors can hold, and what the harness needs to know of each:
// its size, its name in results, and whether it is a floating-point type (NaN-poisonable).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace aisp {

enum class DType { f64, f32, f16, bf16, fp8_e4m3, fp8_e5m2, i64, i32, i8, u64, u32, u8 };

// Bytes per element.
std::size_t dtype_size(DType dtype);

// Name used in signatures, results and error messages ("f32", "bf16", ...).
std::string_view dtype_name(DType dtype);

// Inverse of dtype_name; nullopt for an unknown name.
std::optional<DType> dtype_from_name(std::string_view name);

bool dtype_is_floating(DType dtype);

}  // namespace aisp
