#include "report/comparison_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "report/csv_export.hpp"
#include "report/report_format.hpp"

namespace aisp {
namespace {

using report_format::kAbsent;

std::string short_commit(const std::string& commit) {
  return commit.size() > 12 ? commit.substr(0, 12) : commit;
}

std::string speedup_change(const TargetComparison& target) {
  const auto shown = [](const std::optional<Speedup>& speedup) {
    return speedup ? report_format::format_ratio(speedup->value) : std::string(kAbsent);
  };
  if (!target.baseline_run_speedup && !target.candidate_run_speedup) {
    return std::string(kAbsent);
  }
  return shown(target.baseline_run_speedup) + " → " + shown(target.candidate_run_speedup);
}

std::string median_change(const std::optional<VariantChange>& change) {
  if (!change || change->verdict == ChangeVerdict::not_comparable) {
    return std::string(kAbsent);
  }
  return report_format::format_duration_ms(change->baseline_run_median_ms) + " → " +
         report_format::format_duration_ms(change->candidate_run_median_ms);
}

std::string variant_change(const std::optional<VariantChange>& change) {
  return change ? format_time_change(*change) : std::string(kAbsent);
}

std::string confidence_percent(const RunComparisonSettings& settings) {
  return fmt::format("{:g}%", settings.confidence * 100);
}

// How to read the table's columns.
constexpr std::string_view kColumnsSentence =
    "Medians and speedups read baseline run → candidate run; a time change is the candidate "
    "run's median time against the baseline run's (+ is slower).";

std::string rule_sentence(const RunComparisonSettings& settings) {
  return fmt::format("A change is called when the {} bootstrap interval of the median-time ratio "
                     "(candidate / baseline run) excludes 1 and the change exceeds {:g}%.",
                     confidence_percent(settings), settings.threshold * 100);
}

// A target whose detail says more than its table row: why it was not compared, why it failed,
// a change within the threshold, or a note on the machine or the workload.
bool needs_note(const TargetComparison& target) {
  switch (target.verdict) {
  case ChangeVerdict::failed:
  case ChangeVerdict::skipped:
  case ChangeVerdict::not_comparable:
    return true;
  case ChangeVerdict::added:
  case ChangeVerdict::removed:
    return false;
  case ChangeVerdict::regression:
  case ChangeVerdict::improvement:
  case ChangeVerdict::no_significant_change:
    break;
  }
  return target.detail.find("; ") != std::string::npos ||
         target.detail.find("excludes no change") != std::string::npos;
}

std::vector<std::array<std::string, 6>> table_rows(const RunComparison& comparison) {
  std::vector<std::array<std::string, 6>> rows;
  for (const TargetComparison& target : comparison.targets) {
    rows.push_back({target.target, std::string(change_verdict_name(target.verdict)),
                    median_change(target.optimized), variant_change(target.optimized),
                    variant_change(target.baseline), speedup_change(target)});
  }
  return rows;
}

std::array<std::string, 6> table_header(const RunComparison& comparison) {
  const std::string ci = confidence_percent(comparison.settings) + " CI";
  return {"Target",
          "Verdict",
          "Optimized median",
          "Optimized time change [" + ci + "]",
          "Baseline variant time change",
          "Speedup"};
}

nlohmann::ordered_json number_json(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json speedup_json(const std::optional<Speedup>& speedup) {
  if (!speedup) {
    return nullptr;
  }
  return nlohmann::ordered_json{{"value", number_json(speedup->value)},
                                {"ci_low", number_json(speedup->ci_low)},
                                {"ci_high", number_json(speedup->ci_high)},
                                {"verdict", speedup->verdict}};
}

// The numbers of one compared series, after `head` (the variant's or the mark's name).
nlohmann::ordered_json time_change_json(nlohmann::ordered_json head, const TimeChange& change) {
  head["baseline_run_samples"] = change.baseline_run_samples;
  head["candidate_run_samples"] = change.candidate_run_samples;
  head["baseline_run_median_ms"] = number_json(change.baseline_run_median_ms);
  head["candidate_run_median_ms"] = number_json(change.candidate_run_median_ms);
  head["time_ratio"] = number_json(change.ratio);
  head["time_ratio_ci_low"] = number_json(change.ci_low);
  head["time_ratio_ci_high"] = number_json(change.ci_high);
  head["verdict"] = change_verdict_name(change.verdict);
  head["detail"] = change.detail;
  return head;
}

nlohmann::ordered_json variant_json(const std::optional<VariantChange>& change) {
  if (!change) {
    return nullptr;
  }
  nlohmann::ordered_json marks = nlohmann::ordered_json::array();
  for (const MarkChange& mark : change->marks) {
    marks.push_back(time_change_json({{"name", mark.name}}, mark));
  }
  nlohmann::ordered_json variant =
      time_change_json({{"variant", change->variant}, {"samples", change->samples}}, *change);
  variant["marks"] = std::move(marks);
  variant["marks_missing"] = change->marks_missing;
  return variant;
}

std::string number_cell(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : std::string();
}

void append_variant_cells(std::vector<std::string>& row,
                          const std::optional<VariantChange>& change) {
  if (!change) {
    row.insert(row.end(), 7, std::string());
    return;
  }
  const bool compared = change->verdict != ChangeVerdict::not_comparable;
  row.push_back(change->variant);
  row.push_back(compared ? number_cell(change->baseline_run_median_ms) : "");
  row.push_back(compared ? number_cell(change->candidate_run_median_ms) : "");
  row.push_back(compared ? number_cell(change->ratio) : "");
  row.push_back(compared ? number_cell(change->ci_low) : "");
  row.push_back(compared ? number_cell(change->ci_high) : "");
  row.emplace_back(change_verdict_name(change->verdict));
}

std::string markdown_cell(std::string_view text) {
  std::string cell;
  for (char c : report_format::single_line(text)) {
    if (c == '|') {
      cell += "\\|";
    } else {
      cell.push_back(c);
    }
  }
  return cell;
}

}  // namespace

std::string format_verdict_counts(const RunComparison& comparison) {
  std::string text = fmt::format("{} target{}", comparison.targets.size(),
                                 comparison.targets.size() == 1 ? "" : "s");
  std::string counts;
  for (ChangeVerdict verdict : kChangeVerdicts) {
    const auto count = std::count_if(
        comparison.targets.begin(), comparison.targets.end(),
        [verdict](const TargetComparison& target) { return target.verdict == verdict; });
    if (count == 0) {
      continue;
    }
    std::string name(change_verdict_name(verdict));
    if (count > 1 &&
        (verdict == ChangeVerdict::regression || verdict == ChangeVerdict::improvement)) {
      name += "s";
    }
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, name);
  }
  return counts.empty() ? text : text + ": " + counts;
}

std::string render_comparison_text(const RunComparison& comparison) {
  const auto run_line = [](std::string_view label, const std::string& id,
                           const std::string& hardware, const std::string& commit) {
    std::string line = fmt::format("{} {}", label, id.empty() ? "(no run id)" : id);
    if (!hardware.empty()) {
      line += ", " + hardware;
    }
    if (!commit.empty()) {
      line += ", commit " + short_commit(commit);
    }
    return line + "\n";
  };
  std::string text = run_line("Baseline run: ", comparison.baseline_run_id,
                              comparison.baseline_hardware, comparison.baseline_commit);
  text += run_line("Candidate run:", comparison.candidate_run_id, comparison.candidate_hardware,
                   comparison.candidate_commit);
  for (const std::string& warning : comparison.warnings) {
    text += "warning: " + warning + "\n";
  }
  text += rule_sentence(comparison.settings) + "\n" + std::string(kColumnsSentence) + "\n\n";

  const std::array<std::string, 6> header = table_header(comparison);
  const std::vector<std::array<std::string, 6>> rows = table_rows(comparison);
  std::array<std::size_t, 6> widths{};
  for (std::size_t column = 0; column < header.size(); ++column) {
    widths[column] = report_format::display_width(header[column]);
    for (const auto& row : rows) {
      widths[column] = std::max(widths[column], report_format::display_width(row[column]));
    }
  }
  const auto append_row = [&](const std::array<std::string, 6>& row) {
    std::string line;
    for (std::size_t column = 0; column < row.size(); ++column) {
      line += row[column];
      if (column + 1 < row.size()) {
        line += std::string(widths[column] - report_format::display_width(row[column]) + 2, ' ');
      }
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    text += line + "\n";
  };
  append_row(header);
  for (const auto& row : rows) {
    append_row(row);
  }

  std::string notes;
  for (const TargetComparison& target : comparison.targets) {
    if (needs_note(target)) {
      notes += fmt::format("  {}: {}\n", target.target, target.detail);
    }
  }
  if (!notes.empty()) {
    text += "\n" + notes;
  }
  text += "\n" + format_verdict_counts(comparison) + ".\n";
  return text;
}

std::string render_comparison_markdown(const RunComparison& comparison) {
  std::string text =
      fmt::format("# Run comparison: {} against {}\n\n", markdown_cell(comparison.candidate_run_id),
                  markdown_cell(comparison.baseline_run_id));
  const auto run_line = [](std::string_view label, const std::string& id,
                           const std::string& hardware, const std::string& commit) {
    std::string line = fmt::format("- {} run `{}`", label, id);
    if (!hardware.empty()) {
      line += " on " + hardware;
    }
    if (!commit.empty()) {
      line += ", commit `" + short_commit(commit) + "`";
    }
    return line + "\n";
  };
  text += run_line("Baseline", comparison.baseline_run_id, comparison.baseline_hardware,
                   comparison.baseline_commit);
  text += run_line("Candidate", comparison.candidate_run_id, comparison.candidate_hardware,
                   comparison.candidate_commit);
  text += "\n" + format_verdict_counts(comparison) + ". " + rule_sentence(comparison.settings) +
          " " + std::string(kColumnsSentence) + "\n\n";
  for (const std::string& warning : comparison.warnings) {
    text += "> **Warning:** " + markdown_cell(warning) + "\n\n";
  }
  const std::array<std::string, 6> header = table_header(comparison);
  text += "|";
  for (const std::string& cell : header) {
    text += " " + cell + " |";
  }
  text += "\n|:--|:--|--:|--:|--:|--:|\n";
  for (const auto& row : table_rows(comparison)) {
    text += "|";
    for (const std::string& cell : row) {
      text += " " + markdown_cell(cell) + " |";
    }
    text += "\n";
  }
  std::string notes;
  for (const TargetComparison& target : comparison.targets) {
    if (needs_note(target)) {
      notes += fmt::format("- **{}** {}: {}\n", markdown_cell(target.target),
                           change_verdict_name(target.verdict), markdown_cell(target.detail));
    }
  }
  if (!notes.empty()) {
    text += "\n## Notes\n\n" + notes;
  }
  return text;
}

std::string render_comparison_csv(const RunComparison& comparison) {
  static const std::vector<std::string> columns = {
      "target",
      "verdict",
      "detail",
      "optimized_variant",
      "optimized_baseline_run_median_ms",
      "optimized_candidate_run_median_ms",
      "optimized_time_ratio",
      "optimized_time_ratio_ci_low",
      "optimized_time_ratio_ci_high",
      "optimized_verdict",
      "baseline_variant",
      "baseline_variant_baseline_run_median_ms",
      "baseline_variant_candidate_run_median_ms",
      "baseline_variant_time_ratio",
      "baseline_variant_time_ratio_ci_low",
      "baseline_variant_time_ratio_ci_high",
      "baseline_variant_verdict",
      "speedup_baseline_run",
      "speedup_candidate_run",
      "optimized_marks",
  };
  const auto append_line = [](std::string& text, const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      text += (i == 0 ? "" : ",") + csv_field(row[i]);
    }
    text += "\n";
  };
  std::string text;
  append_line(text, columns);
  for (const TargetComparison& target : comparison.targets) {
    std::vector<std::string> row{target.target, std::string(change_verdict_name(target.verdict)),
                                 target.detail};
    append_variant_cells(row, target.optimized);
    append_variant_cells(row, target.baseline);
    row.push_back(target.baseline_run_speedup ? number_cell(target.baseline_run_speedup->value)
                                              : "");
    row.push_back(target.candidate_run_speedup ? number_cell(target.candidate_run_speedup->value)
                                               : "");
    row.push_back(target.optimized ? format_mark_changes(*target.optimized) : "");
    append_line(text, row);
  }
  return text;
}

nlohmann::ordered_json comparison_to_json(const RunComparison& comparison) {
  nlohmann::ordered_json counts = nlohmann::ordered_json::object();
  for (ChangeVerdict verdict : kChangeVerdicts) {
    counts[std::string(change_verdict_name(verdict))] = std::count_if(
        comparison.targets.begin(), comparison.targets.end(),
        [verdict](const TargetComparison& target) { return target.verdict == verdict; });
  }
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (const TargetComparison& target : comparison.targets) {
    targets.push_back(nlohmann::ordered_json{
        {"target", target.target},
        {"verdict", change_verdict_name(target.verdict)},
        {"detail", target.detail},
        {"optimized", variant_json(target.optimized)},
        {"baseline", variant_json(target.baseline)},
        {"speedup_baseline_run", speedup_json(target.baseline_run_speedup)},
        {"speedup_candidate_run", speedup_json(target.candidate_run_speedup)},
    });
  }
  return nlohmann::ordered_json{
      {"baseline_run",
       {{"run_id", comparison.baseline_run_id},
        {"hardware", comparison.baseline_hardware},
        {"git_commit", comparison.baseline_commit}}},
      {"candidate_run",
       {{"run_id", comparison.candidate_run_id},
        {"hardware", comparison.candidate_hardware},
        {"git_commit", comparison.candidate_commit}}},
      {"rule",
       {{"threshold", comparison.settings.threshold},
        {"confidence", comparison.settings.confidence},
        {"resamples", comparison.settings.resamples},
        {"seed", comparison.settings.seed},
        {"text", rule_sentence(comparison.settings)}}},
      {"warnings", comparison.warnings},
      {"counts", counts},
      {"blocking", count_blocking_changes(comparison)},
      {"targets", targets},
  };
}

}  // namespace aisp
