#include "verify/output_comparison.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/context_state.hpp"
#include "verify/element_decoding.hpp"

namespace aisp {

std::size_t count_unwritten(DType dtype, const std::vector<unsigned char>& bytes) {
  const std::size_t width = dtype_size(dtype);
  const unsigned char poison = dtype_is_floating(dtype) ? kFloatPoisonByte : kIntegerPoisonByte;
  std::size_t unwritten = 0;
  for (std::size_t offset = 0; offset + width <= bytes.size(); offset += width) {
    bool all_poison = true;
    for (std::size_t b = 0; b < width && all_poison; ++b) all_poison = bytes[offset + b] == poison;
    unwritten += all_poison ? 1 : 0;
  }
  return unwritten;
}

std::size_t count_non_finite(DType dtype, const std::vector<unsigned char>& bytes) {
  if (!dtype_is_floating(dtype)) return 0;
  const std::size_t count = bytes.size() / dtype_size(dtype);
  std::size_t non_finite = 0;
  for (std::size_t i = 0; i < count; ++i)
    non_finite += std::isfinite(decode_element(dtype, bytes.data(), i)) ? 0 : 1;
  return non_finite;
}

ToleranceReport compare_within_tolerance(DType dtype, const std::vector<unsigned char>& expected,
                                         const std::vector<unsigned char>& actual,
                                         const Tolerance& tolerance) {
  ToleranceReport report;
  const std::size_t count = expected.size() / dtype_size(dtype);
  for (std::size_t i = 0; i < count; ++i) {
    const double e = decode_element(dtype, expected.data(), i);
    const double a = decode_element(dtype, actual.data(), i);
    const double abs_error = std::fabs(a - e);
    const double rel_error = e != 0 ? abs_error / std::fabs(e) : (abs_error == 0 ? 0 : INFINITY);
    // NaN compares false everywhere: `!(x <= bound)` counts it as a mismatch.
    const bool ok = abs_error <= tolerance.atol + tolerance.rtol * std::fabs(e);
    if (std::isfinite(abs_error)) {
      report.max_abs_error = std::max(report.max_abs_error, abs_error);
      if (std::isfinite(rel_error)) report.max_rel_error = std::max(report.max_rel_error, rel_error);
    }
    if (!ok) {
      if (report.mismatches == 0) {
        report.first_mismatch = i;
        report.first_expected = e;
        report.first_actual = a;
      }
      ++report.mismatches;
    }
  }
  report.passed = report.mismatches == 0 && count > 0;
  return report;
}

std::string describe(const ToleranceReport& report, const Tolerance& tolerance,
                     const std::string& output_name, std::size_t count) {
  std::string text = fmt::format("{}: {} of {} elements outside rtol={:g} atol={:g}; max abs error "
                                 "{:.3g}, max rel error {:.3g}",
                                 output_name, report.mismatches, count, tolerance.rtol,
                                 tolerance.atol, report.max_abs_error, report.max_rel_error);
  if (report.mismatches > 0)
    text += fmt::format("; first at index {}: baseline {:.9g}, optimized {:.9g}",
                        report.first_mismatch, report.first_expected, report.first_actual);
  return text;
}

}  // namespace aisp
