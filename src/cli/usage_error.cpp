#include "cli/usage_error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

namespace aisp {
namespace {

// All of `text` as a finite double ("1e-3" yes; "", "abc", "2%", "nan", "inf", "1e400" no).
std::optional<double> finite_number(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

double fraction_from_percent_flag(std::string_view flag, double percent, double example_percent) {
  if (!(percent >= 0 && percent < 1000)) {
    throw UsageError(fmt::format("{} {:g}: must be a percentage in [0, 1000), e.g. {:g} for {:g}%",
                                 flag, percent, example_percent, example_percent));
  }
  return percent / 100.0;
}

double fraction_from_percent_flag(std::string_view flag, std::string_view text,
                                  double example_percent) {
  const std::optional<double> percent = finite_number(text);
  if (!percent) {
    throw UsageError(fmt::format("{} {}: must be a percentage in [0, 1000), e.g. {:g} for {:g}%",
                                 flag, text.empty() ? "''" : text, example_percent,
                                 example_percent));
  }
  return fraction_from_percent_flag(flag, *percent, example_percent);
}

double number_from_flag(std::string_view flag, std::string_view text, std::string_view allowed) {
  const std::optional<double> value = finite_number(text);
  if (!value) {
    throw UsageError(fmt::format("{} {}: must be {}", flag, text.empty() ? "''" : text, allowed));
  }
  return *value;
}

}  // namespace aisp
