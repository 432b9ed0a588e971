// The text and number helpers of report.html's parts (html_parts.hpp).
#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "report/html/html_parts.hpp"
#include "report/report_format.hpp"

namespace aisp::html {

namespace rf = report_format;
using rf::kAbsent;

// Text and numbers

std::string esc(std::string_view text) { return html_escape(text); }

// A pixel coordinate.
std::string px(double value) { return fmt::format("{:.1f}", value); }

// `digits` significant digits, no exponent: "4275", "50.6", "0.000859".
std::string significant(double value, int digits) {
  if (!std::isfinite(value)) {
    return std::string(kAbsent);
  }
  if (value == 0) {
    return "0";
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  return fmt::format("{:.{}f}", value, std::max(0, digits - 1 - magnitude));
}

// A measured ceiling as the other reports print it: "4275", "50.6", "0.68".
std::string ceiling_number(double value) {
  return std::fabs(value) >= 1000 ? fmt::format("{:.0f}", value) : fmt::format("{:.4g}", value);
}

// "2.15 GB", "10.7 GFLOP", "512 B".
std::string with_si_prefix(double value, std::string_view unit) {
  if (!std::isfinite(value)) {
    return std::string(kAbsent);
  }
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  std::size_t prefix = 0;
  while (std::fabs(value) >= 999.5 && prefix + 1 < std::size(kPrefixes)) {
    value /= 1000;
    ++prefix;
  }
  return fmt::format("{} {}{}", significant(value), kPrefixes[prefix], unit);
}

// A tick label: "0.5", "2", "100", "0.001", "1e-05".
std::string tick_number(double value) { return fmt::format("{:g}", value); }

std::string manifest_text(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) {
    return {};
  }
  const auto value = object.find(key);
  if (value == object.end() || value->is_null()) {
    return {};
  }
  if (value->is_string()) {
    return value->get<std::string>();
  }
  if (value->is_number() || value->is_boolean()) {
    return value->dump();
  }
  return {};
}

// Where a pair's marks and rows meet: the script highlights every element of one data-pair.
std::string pair_key(std::size_t index) { return fmt::format("p{}", index); }
std::string pair_anchor(std::size_t index) { return fmt::format("pair-{}", index); }

std::string verdict_class(const Speedup& speedup) {
  if (speedup.verdict == "faster") {
    return "faster";
  }
  if (speedup.verdict == "slower") {
    return "slower";
  }
  return "nodiff";
}

// Under the verdict of a pair that moved against its expectation: a red "below expectation" or
// a green "above expectation", the numbers in its title. Nothing otherwise.
std::string expectation_mark(const PairResult& pair) {
  if (!pair.expectation) {
    return {};
  }
  const ExpectationCheck& check = *pair.expectation;
  if (check.verdict != "regression" && check.verdict != "improvement") {
    return {};
  }
  const bool regression = check.verdict == "regression";
  return fmt::format("<div class=\"reason {}\" title=\"{}\">{} expectation ({})</div>",
                     regression ? "slower" : "faster",
                     esc(check.detail + "; recorded: " + check.recorded),
                     regression ? "below" : "above", esc(check.hardware_key));
}

std::string status_class(PairStatus status) {
  switch (status) {
  case PairStatus::passed:
    return "passed";
  case PairStatus::skipped:
    return "skipped";
  case PairStatus::interrupted:
    return "interrupted";
  case PairStatus::failed:
  case PairStatus::timed_out:
  case PairStatus::crashed:
  case PairStatus::quarantined:
    break;
  }
  return "failed";
}

// Why a pair shows no speedup, in a few words: "crashed", "outputs did not verify", "skipped".
std::string quarantine_reason(const PairResult& pair) {
  if (pair.status == PairStatus::passed && !pair.verification.passed) {
    return "outputs did not verify";
  }
  if (pair.status == PairStatus::passed) {
    return "not timed";
  }
  return std::string(pair_status_name(pair.status));
}

// A speedup the log axis can place: shown (the pair passed with verified outputs) and positive.
bool has_plottable_speedup(const PairResult& pair) {
  return rf::shows_speedup(pair) && pair.speedup->value > 0 && pair.speedup->ci_low > 0 &&
         std::isfinite(pair.speedup->value) && std::isfinite(pair.speedup->ci_high);
}

const std::vector<double>& timed_samples(const VariantMeasurement& measurement) {
  return measurement.method == TimingMethod::host_clock ? measurement.host_ms
                                                        : measurement.event_ms;
}

}  // namespace aisp::html
