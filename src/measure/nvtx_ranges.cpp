#include "measure/nvtx_ranges.hpp"

namespace aisp {
namespace {

// Operators of ncu's --nvtx-include grammar: '/' separates nested ranges, '[' and ']' anchor
// the stack's bottom and top, '+' and '*' match ranges in between, '@' follows a domain, '\'
// escapes.
constexpr std::string_view kFilterOperators = "/[]+*@\\";

std::string without_operators(std::string_view text) {
  std::string safe(text);
  for (char& c : safe) {
    if (kFilterOperators.find(c) != std::string_view::npos) {
      c = '_';
    }
  }
  return safe;
}

}  // namespace

std::string nvtx_label(std::string_view target, std::string_view variant) {
  return without_operators(target) + " " + without_operators(variant);
}

std::string nvtx_range_name(std::string_view phase, std::string_view label) {
  std::string name(phase);
  if (!label.empty()) {
    name += " ";
    name += label;
  }
  return name;
}

}  // namespace aisp
