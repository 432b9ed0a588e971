// Signature, Tolerance defaults and feature names: the value types of the contract.
#include "aisp/benchmark.hpp"

#include <fmt/format.h>

namespace aisp {

Signature& Signature::set(std::string key, std::string value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
  return *this;
}

Signature& Signature::set(std::string key, long long value) {
  return set(std::move(key), std::to_string(value));
}

Signature& Signature::set(std::string key, double value) {
  return set(std::move(key), fmt::format("{}", value));
}

Signature& Signature::set(std::string key, DType value) {
  return set(std::move(key), std::string(dtype_name(value)));
}

std::string Signature::to_string() const {
  std::string text;
  for (const auto& [k, v] : entries_) {
    if (!text.empty()) text += ' ';
    text += k + '=' + v;
  }
  return text;
}

// Defaults sized for a different summation order of the same math in the same precision:
// a few units in the last place of an accumulated value, relative, with an absolute floor for
// values that cancel to near zero. docs/verification.md explains the choice.
Tolerance Tolerance::for_dtype(DType dtype) {
  switch (dtype) {
  case DType::f64: return {1e-12, 1e-13, ""};
  case DType::f32: return {1e-5, 1e-6, ""};
  case DType::f16: return {1e-3, 1e-4, ""};
  case DType::bf16: return {8e-3, 1e-3, ""};
  case DType::fp8_e4m3: return {6.25e-2, 1e-2, ""};
  case DType::fp8_e5m2: return {1.25e-1, 2e-2, ""};
  default: return {0, 0, ""};  // integers: exact
  }
}

std::string_view feature_name(Feature feature) {
  switch (feature) {
  case Feature::tma: return "tma";
  case Feature::wgmma: return "wgmma";
  case Feature::thread_block_clusters: return "thread_block_clusters";
  case Feature::fp8: return "fp8";
  case Feature::tcgen05: return "tcgen05";
  }
  return "unknown";
}

}  // namespace aisp
