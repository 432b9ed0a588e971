#include "report/csv_export.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "report/precision_format.hpp"
#include "report/profile_format.hpp"
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

template <class Number>
std::string optional_number_cell(const std::optional<Number>& value) {
  return value ? number_cell(static_cast<double>(*value)) : std::string();
}

void append_expectation(std::vector<std::string>& row, const std::optional<ExpectationCheck>& check) {
  if (!check) {
    row.insert(row.end(), 4, std::string());
    return;
  }
  row.push_back(check->verdict);
  row.push_back(optional_number_cell(check->expected_speedup));
  row.push_back(optional_number_cell(check->expected_ci_low));
  row.push_back(optional_number_cell(check->expected_ci_high));
}

// A variant's profile: device time per run, its dominant kernel and that kernel's headline
// metrics (profile_format::kHeadlineMetrics; empty cells where not collected).
void append_variant_profile(std::vector<std::string>& row,
                            const std::optional<VariantProfile>& variant) {
  const std::size_t cells = 2 + profile_format::kHeadlineMetrics.size();
  if (!variant || variant->status != ProfileStatus::collected) {
    row.insert(row.end(), cells, std::string());
    return;
  }
  row.push_back(number_cell(variant->duration_ms_per_run));
  const ProfiledKernel* kernel = profile_format::dominant_kernel(*variant);
  row.push_back(kernel ? kernel->name : std::string());
  for (const std::string_view name : profile_format::kHeadlineMetrics) {
    const ProfileMetric* metric = kernel ? profile_format::find_metric(*kernel, name) : nullptr;
    row.push_back(metric ? number_cell(metric->median) : std::string());
  }
}

void append_profile(std::vector<std::string>& row, const std::optional<PairProfile>& profile) {
  row.push_back(profile ? std::string(profile_status_name(profile->status)) : std::string());
  append_variant_profile(row, profile ? profile->baseline : std::nullopt);
  append_variant_profile(row, profile ? profile->optimized : std::nullopt);
}

// The pair's library reference: name, reference variant, role, and the fraction (shown by the
// speedup's rule) with its interval and verdict and the reference's median.
void append_library(std::vector<std::string>& row, const PairResult& pair) {
  if (!pair.library) {
    row.insert(row.end(), 8, std::string());
    return;
  }
  const LibraryComparison& library = *pair.library;
  row.push_back(library.library);
  row.push_back(library.reference_variant);
  row.emplace_back(library_role_name(library.role));
  if (report_format::shows_library_fraction(pair)) {
    row.push_back(number_cell(library.fraction->value));
    row.push_back(number_cell(library.fraction->ci_low));
    row.push_back(number_cell(library.fraction->ci_high));
    row.push_back(library.fraction->verdict);
  } else {
    row.insert(row.end(), 4, std::string());
  }
  row.push_back(library.reference ? number_cell(library.reference->stats.median) : std::string());
}

// Errors against the float64 reference, the worst over the outputs, and the declared format.
void append_precision(std::vector<std::string>& row, const std::optional<PrecisionResult>& p) {
  namespace pf = precision_format;
  if (!p) {
    row.insert(row.end(), 8, std::string());
    return;
  }
  row.push_back(optional_number_cell(pf::worst_relative_rms(p->baseline)));
  row.push_back(optional_number_cell(pf::worst_max_abs(p->baseline)));
  row.push_back(optional_number_cell(pf::worst_relative_rms(p->optimized)));
  row.push_back(optional_number_cell(pf::worst_max_abs(p->optimized)));
  row.push_back(optional_number_cell(pf::worst_max_relative(p->optimized)));
  const auto& declared = p->optimized.lower_precision;
  row.push_back(declared ? "true" : "false");
  row.push_back(declared ? declared->format : std::string());
  row.push_back(declared ? number_cell(declared->max_relative_rms) : std::string());
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
  append_expectation(row, pair.expectation);
  append_profile(row, pair.profile);
  append_library(row, pair);
  append_precision(row, pair.precision);
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
      "expectation_verdict",
      "expected_speedup",
      "expected_speedup_ci_low",
      "expected_speedup_ci_high",
      "profile_status",
      "baseline_profiled_ms_per_run",
      "baseline_profiled_kernel",
      "baseline_sm_throughput_pct",
      "baseline_memory_throughput_pct",
      "baseline_dram_throughput_pct",
      "baseline_achieved_occupancy_pct",
      "optimized_profiled_ms_per_run",
      "optimized_profiled_kernel",
      "optimized_sm_throughput_pct",
      "optimized_memory_throughput_pct",
      "optimized_dram_throughput_pct",
      "optimized_achieved_occupancy_pct",
      "library",
      "library_reference_variant",
      "library_role",
      "library_fraction",
      "library_fraction_ci_low",
      "library_fraction_ci_high",
      "library_fraction_verdict",
      "library_reference_median_ms",
      "baseline_error_relative_rms",
      "baseline_error_max_abs",
      "optimized_error_relative_rms",
      "optimized_error_max_abs",
      "optimized_error_max_relative",
      "lower_precision",
      "lower_precision_format",
      "lower_precision_max_relative_rms",
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
