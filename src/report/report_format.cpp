#include "report/report_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace aisp::report_format {
namespace {

std::string format_ceiling_value(double value) {
  if (std::fabs(value) >= 1000) {
    return fmt::format("{:.0f}", value);
  }
  return fmt::format("{:.4g}", value);
}

}  // namespace

std::string format_roofline(const Roofline& roofline, bool with_ceiling_value) {
  std::string text = format_percent(roofline.fraction);
  if (roofline.ceiling.empty() || roofline.ceiling == "none") {
    return text;
  }
  text += " of " + roofline.ceiling;
  if (with_ceiling_value && std::isfinite(roofline.ceiling_value) && roofline.ceiling_value > 0) {
    text += " " + format_ceiling_value(roofline.ceiling_value);
    if (!roofline.ceiling_unit.empty()) {
      text += " " + roofline.ceiling_unit;
    }
  }
  return text;
}

std::string_view status_label(PairStatus status) {
  switch (status) {
  case PairStatus::passed:
    return "PASS";
  case PairStatus::skipped:
    return "SKIP";
  case PairStatus::interrupted:
    return "STOP";
  case PairStatus::quarantined:
    return "QUAR";
  case PairStatus::failed:
  case PairStatus::timed_out:
  case PairStatus::crashed:
    break;
  }
  return "FAIL";
}

std::string render_columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t column = 0; column < row.size(); ++column) {
      widths[column] = std::max(widths[column], display_width(row[column]));
    }
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t column = 0; column < row.size(); ++column) {
      line += row[column];
      if (column + 1 < row.size()) {
        line += std::string(widths[column] - display_width(row[column]) + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    text += line + "\n";
  }
  return text;
}

StatusCounts count_statuses(const RunResults& results) {
  StatusCounts counts;
  for (const PairResult& pair : results.pairs) {
    ++counts.total;
    switch (pair.status) {
    case PairStatus::passed:
      ++counts.passed;
      break;
    case PairStatus::skipped:
      ++counts.skipped;
      break;
    case PairStatus::interrupted:
      ++counts.interrupted;
      break;
    case PairStatus::quarantined:
      ++counts.quarantined;
      break;
    case PairStatus::failed:
    case PairStatus::timed_out:
    case PairStatus::crashed:
      ++counts.failed;
      break;
    }
  }
  return counts;
}

std::string format_counts(const StatusCounts& counts) {
  std::string text =
      fmt::format("{} pair{}: {} passed, {} failed, {} skipped", counts.total,
                  counts.total == 1 ? "" : "s", counts.passed, counts.failed, counts.skipped);
  if (counts.quarantined > 0) {
    text += fmt::format(", {} quarantined", counts.quarantined);
  }
  if (counts.interrupted > 0) {
    text += fmt::format(", {} interrupted", counts.interrupted);
  }
  return text;
}

std::string confidence_label(const RunResults& results) {
  for (const PairResult& pair : results.pairs) {
    if (pair.speedup && std::isfinite(pair.speedup->confidence)) {
      return fmt::format("{:g}% CI", pair.speedup->confidence * 100);
    }
  }
  return "95% CI";
}

std::string verify_phase_note(VerifyPhase phase) {
  switch (phase) {
  case VerifyPhase::gate:
    return {};
  case VerifyPhase::quarantine:
    return "Verification phase: quarantine. A pair that failed a check was still timed where its "
           "outputs could be compared, but is quarantined: no speedup is shown for it, and "
           "quarantine.json lists it with the failed checks.";
  case VerifyPhase::detect:
    return "Verification phase: detect. Failed checks are reported, not enforced: this run is for "
           "developing a pair; never publish its numbers.";
  }
  return {};
}

std::string format_expectation_counts(const RunResults& results) {
  // Singular and plural of each verdict, in the order they are listed.
  constexpr std::array<std::array<std::string_view, 3>, 5> kVerdicts{{
      {"regression", "regression", "regressions"},
      {"improvement", "improvement", "improvements"},
      {"as_expected", "as expected", "as expected"},
      {"no_expectation", "no expectation", "no expectation"},
      {"not_compared", "not compared", "not compared"},
  }};
  const ExpectationCheck* first = nullptr;
  std::array<std::size_t, kVerdicts.size()> counts{};
  std::size_t other = 0;
  for (const PairResult& pair : results.pairs) {
    if (!pair.expectation) {
      continue;
    }
    first = first == nullptr ? &*pair.expectation : first;
    const auto known = std::find_if(kVerdicts.begin(), kVerdicts.end(), [&](const auto& verdict) {
      return verdict[0] == pair.expectation->verdict;
    });
    if (known == kVerdicts.end()) {
      ++other;
    } else {
      ++counts[static_cast<std::size_t>(known - kVerdicts.begin())];
    }
  }
  if (first == nullptr) {
    return {};
  }
  std::string text =
      fmt::format("compared with the expectations for {} ({:g}% threshold):", first->hardware_key,
                  first->threshold * 100);
  std::string listed;
  for (std::size_t i = 0; i < kVerdicts.size(); ++i) {
    if (counts[i] > 0) {
      listed += fmt::format("{} {} {}", listed.empty() ? "" : ",", counts[i],
                            counts[i] == 1 ? kVerdicts[i][1] : kVerdicts[i][2]);
    }
  }
  if (other > 0) {
    listed += fmt::format("{} {} other", listed.empty() ? "" : ",", other);
  }
  return text + listed;
}

}  // namespace aisp::report_format
