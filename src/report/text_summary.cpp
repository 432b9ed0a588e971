#include "report/text_summary.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/library_format.hpp"
#include "report/precision_format.hpp"
#include "report/report_format.hpp"

namespace aisp {
namespace {

namespace rf = report_format;

constexpr std::size_t kMaxReasonChars = 300;
constexpr std::size_t kMaxTableNoteChars = 120;
constexpr std::string_view kFasterVerdict = "faster";

bool has_samples(const std::optional<VariantMeasurement>& measurement) {
  return measurement && measurement->stats.count > 0;
}

std::string median_text(const std::optional<VariantMeasurement>& measurement) {
  return has_samples(measurement) ? rf::format_duration_ms(measurement->stats.median)
                                  : std::string(rf::kAbsent);
}

std::string speedup_text(const Speedup& speedup) {
  std::string text = rf::format_speedup(speedup);
  if (!speedup.verdict.empty() && speedup.verdict != kFasterVerdict) {
    text += " " + speedup.verdict;
  }
  return text;
}

std::string outcome_with_log(const PairResult& result, std::size_t max_chars) {
  std::string text = rf::single_line(rf::describe_outcome(result), max_chars);
  if (!result.log_file.empty() && result.status != PairStatus::skipped) {
    text += fmt::format(" (log: {})", result.log_file);
  }
  return text;
}

enum class Align { left, right };

struct Column {
  std::string title;
  Align align;
};

std::string pad(const std::string& text, std::size_t width, Align align) {
  const std::size_t used = rf::display_width(text);
  const std::string fill(width > used ? width - used : 0, ' ');
  return align == Align::left ? text + fill : fill + text;
}

}  // namespace

std::string format_pair_line(const PairResult& result) {
  std::string line = fmt::format("{} {}", rf::status_label(result.status), result.target);
  if (result.status != PairStatus::passed) {
    return line + "  " + outcome_with_log(result, kMaxReasonChars);
  }
  if (has_samples(result.baseline) || has_samples(result.optimized)) {
    line += fmt::format("  {} → {}", median_text(result.baseline), median_text(result.optimized));
  } else {
    line += rf::passed_with_failed_checks(result) ? "  checked" : "  verified";
    if (!result.verification.checks.empty()) {
      const std::size_t count = result.verification.checks.size();
      line += fmt::format(" ({} check{})", count, count == 1 ? "" : "s");
    }
  }
  if (rf::shows_speedup(result)) {
    line += "  " + speedup_text(*result.speedup);
    if (result.roofline) {
      line += "  " + rf::format_roofline(*result.roofline, false);
    }
  }
  if (const std::string library = library_format::format_library_note(result); !library.empty()) {
    line += "  " + library;
  }
  if (const PrecisionDeclaration* lower = precision_format::lower_precision(result)) {
    line += "  LOWER PRECISION (" + rf::single_line(lower->format, 60) + ")";
  }
  if (rf::passed_with_failed_checks(result)) {
    std::size_t failed = 0;
    std::string first;
    for (const CheckOutcome& check : result.verification.checks) {
      if (!check.passed) {
        first = first.empty() ? check.check + ": " + check.detail : first;
        ++failed;
      }
    }
    line += fmt::format("\n  warning: {} check{} failed, not enforced (--verify-phase detect): {}",
                        failed, failed == 1 ? "" : "s", rf::single_line(first, kMaxReasonChars));
    if (result.speedup) {
      line += fmt::format("; unverified speedup {}, shown in no report",
                          rf::format_speedup(*result.speedup));
    }
  }
  return line;
}

std::string format_check_lines(const Verification& verification) {
  std::string lines;
  for (const CheckOutcome& check : verification.checks) {
    lines += fmt::format("    {} {}: {}\n", check.passed ? "ok  " : "FAIL", check.check,
                         rf::single_line(check.detail, kMaxReasonChars));
  }
  return lines;
}

std::string render_text_summary(const RunResults& results) {
  const std::string speedup_title = fmt::format("Speedup [{}]", rf::confidence_label(results));
  // The library and error columns appear only in runs that have something to put in them.
  const bool library_column = library_format::any_library(results);
  const bool error_column = precision_format::any_precision(results);
  std::vector<Column> columns{
      {"Status", Align::left},     {"Target", Align::left},      {"Baseline", Align::right},
      {"Optimized", Align::right}, {speedup_title, Align::left}, {"Roofline", Align::left},
  };
  if (library_column)
    columns.push_back({"Of library", Align::left});
  if (error_column)
    columns.push_back({"Error (rel. RMS)", Align::left});
  columns.push_back({"Note", Align::left});

  std::vector<std::vector<std::string>> rows;
  rows.reserve(results.pairs.size());
  // Skips are one row per reason, after the pairs that ran: on a machine without a GPU every GPU
  // pair has the same reason, and 29 copies of it would bury the lines that matter. Which pairs
  // were skipped stays in results.json and summary.md.
  std::vector<std::pair<std::string, std::vector<std::string>>> skips;  // reason -> targets
  for (const PairResult& pair : results.pairs) {
    if (pair.status == PairStatus::skipped) {
      const std::string reason = outcome_with_log(pair, kMaxTableNoteChars);
      auto same = std::find_if(skips.begin(), skips.end(),
                               [&](const auto& skip) { return skip.first == reason; });
      if (same == skips.end()) {
        skips.emplace_back(reason, std::vector<std::string>{});
        same = std::prev(skips.end());
      }
      same->second.push_back(pair.target);
      continue;
    }
    const bool speedup_shown = rf::shows_speedup(pair);
    std::string note;
    if (pair.status != PairStatus::passed) {
      note = outcome_with_log(pair, kMaxTableNoteChars);
    } else if (rf::passed_with_failed_checks(pair)) {
      note = rf::single_line("not enforced (detect): " + rf::format_verification(pair.verification),
                             kMaxTableNoteChars);
    } else if (speedup_shown) {
      note = pair.speedup->verdict;
    } else if (!has_samples(pair.baseline) && !has_samples(pair.optimized)) {
      note = "verified";
    }
    std::vector<std::string> row{
        std::string(rf::status_label(pair.status)),
        pair.target,
        median_text(pair.baseline),
        median_text(pair.optimized),
        speedup_shown ? rf::format_speedup(*pair.speedup) : std::string(rf::kAbsent),
        speedup_shown && pair.roofline ? rf::format_roofline(*pair.roofline, false)
                                       : std::string(rf::kAbsent),
    };
    if (library_column)
      row.push_back(library_format::library_cell(pair));
    if (error_column)
      row.push_back(precision_format::precision_cell(pair));
    row.push_back(std::move(note));
    rows.push_back(std::move(row));
  }

  for (const auto& [reason, targets] : skips) {
    const std::string who =
        targets.size() == 1 ? targets.front() : fmt::format("{} pairs", targets.size());
    std::vector<std::string> row(columns.size(), std::string(rf::kAbsent));
    row.front() = std::string(rf::status_label(PairStatus::skipped));
    row[1] = who;
    row.back() = reason;
    rows.push_back(std::move(row));
  }

  std::vector<std::size_t> widths(columns.size(), 0);
  for (std::size_t column = 0; column < columns.size(); ++column) {
    widths[column] = rf::display_width(columns[column].title);
    for (const auto& row : rows) {
      widths[column] = std::max(widths[column], rf::display_width(row[column]));
    }
  }
  const auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t column = 0; column < columns.size(); ++column) {
      const bool last = column + 1 == columns.size();
      line += (column == 0 ? "" : "  ");
      line += last ? cells[column] : pad(cells[column], widths[column], columns[column].align);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    return line + "\n";
  };

  std::vector<std::string> header;
  for (const Column& column : columns) {
    header.emplace_back(column.title);
  }
  std::string text = render_row(header);
  for (const auto& row : rows) {
    text += render_row(row);
  }
  text += "\n" + rf::format_counts(rf::count_statuses(results));
  if (!results.complete) {
    text += " (interrupted: the results are partial)";
  }
  text += "\n";
  if (const std::string note = rf::verify_phase_note(results.verify_phase); !note.empty()) {
    text += note + "\n";
  }
  const std::string expectations = rf::format_expectation_counts(results);
  if (!expectations.empty()) {
    text += "Expectations: " + expectations + "\n";
    for (const PairResult& pair : results.pairs) {
      if (pair.expectation && (pair.expectation->verdict == "regression" ||
                               pair.expectation->verdict == "improvement")) {
        text +=
            fmt::format("  {} {}  {} (recorded: {})\n",
                        pair.expectation->verdict == "regression" ? "REGRESSION" : "IMPROVEMENT",
                        pair.target, pair.expectation->detail, pair.expectation->recorded);
      }
    }
  }
  return text;
}

}  // namespace aisp
