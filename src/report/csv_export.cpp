#include "report/csv_export.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp {
namespace {

std::string number_cell(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : std::string();
}

template <class Unsigned>
std::string optional_cell(const std::optional<Unsigned>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

void append_measurement(std::vector<std::string>& row,
                        const std::optional<VariantMeasurement>& measurement) {
  if (!measurement) {
    row.insert(row.end(), 7, std::string());
    return;
  }
  const SampleStats& stats = measurement->stats;
  row.push_back(number_cell(stats.median));
  row.push_back(number_cell(stats.mean));
  row.push_back(number_cell(stats.p05));
  row.push_back(number_cell(stats.p95));
  row.push_back(number_cell(stats.relative_noise));
  row.push_back(fmt::format("{}", stats.count));
  row.emplace_back(timing_method_name(measurement->method));
}

std::string verification_cell(const Verification& verification) {
  if (verification.checks.empty() && !verification.passed) {
    return std::string();
  }
  return verification.passed ? "passed" : "failed";
}

std::vector<std::string> pair_row(const PairResult& pair) {
  std::vector<std::string> row{pair.target, pair.chapter,
                               pair.pair,   std::string(pair_status_name(pair.status)),
                               pair.reason, verification_cell(pair.verification)};
  append_measurement(row, pair.baseline);
  append_measurement(row, pair.optimized);
  // Like every report, the CSV quarantines the speedup and roofline of a pair that did not pass.
  const bool speedup_shown = report_format::shows_speedup(pair);
  if (speedup_shown) {
    row.push_back(number_cell(pair.speedup->value));
    row.push_back(number_cell(pair.speedup->ci_low));
    row.push_back(number_cell(pair.speedup->ci_high));
    row.push_back(pair.speedup->verdict);
  } else {
    row.insert(row.end(), 4, std::string());
  }
  row.push_back(number_cell(pair.bytes));
  row.push_back(number_cell(pair.flops));
  if (speedup_shown && pair.roofline) {
    row.push_back(number_cell(pair.roofline->achieved_gbps));
    row.push_back(number_cell(pair.roofline->achieved_tflops));
    row.push_back(number_cell(pair.roofline->fraction));
    row.push_back(pair.roofline->ceiling);
    row.push_back(number_cell(pair.roofline->ceiling_value));
    row.push_back(pair.roofline->ceiling_unit);
  } else {
    row.insert(row.end(), 6, std::string());
  }
  row.push_back(optional_cell(pair.gpu_before.sm_clock_mhz));
  row.push_back(optional_cell(pair.gpu_after.sm_clock_mhz));
  return row;
}

std::string join_row(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    line += (i == 0 ? "" : ",") + csv_field(fields[i]);
  }
  return line + "\n";
}

}  // namespace

const std::vector<std::string_view>& csv_columns() {
  static const std::vector<std::string_view> columns{
      "target",
      "chapter",
      "pair",
      "status",
      "reason",
      "verification",
      "baseline_median_ms",
      "baseline_mean_ms",
      "baseline_p05_ms",
      "baseline_p95_ms",
      "baseline_relative_noise",
      "baseline_samples",
      "baseline_timing_method",
      "optimized_median_ms",
      "optimized_mean_ms",
      "optimized_p05_ms",
      "optimized_p95_ms",
      "optimized_relative_noise",
      "optimized_samples",
      "optimized_timing_method",
      "speedup",
      "speedup_ci_low",
      "speedup_ci_high",
      "speedup_verdict",
      "bytes",
      "flops",
      "achieved_gbps",
      "achieved_tflops",
      "roofline_fraction",
      "ceiling",
      "ceiling_value",
      "ceiling_unit",
      "sm_clock_before_mhz",
      "sm_clock_after_mhz",
  };
  return columns;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(text);
  }
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c;
    if (c == '"') {
      quoted += '"';
    }
  }
  return quoted + "\"";
}

std::string render_csv(const RunResults& results) {
  const std::vector<std::string> header(csv_columns().begin(), csv_columns().end());
  std::string text = join_row(header);
  for (const PairResult& pair : results.pairs) {
    text += join_row(pair_row(pair));
  }
  return text;
}

}  // namespace aisp
