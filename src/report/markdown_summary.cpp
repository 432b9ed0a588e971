#include "report/markdown_summary.hpp"

#include <vector>

#include <fmt/format.h>

#include "report/library_format.hpp"
#include "report/marks_format.hpp"
#include "report/precision_format.hpp"
#include "report/profile_format.hpp"
#include "report/report_format.hpp"

namespace aisp {
namespace {

namespace rf = report_format;

std::string gpu_name(const nlohmann::json& manifest) {
  if (!manifest.is_object()) {
    return "no GPU";
  }
  const auto gpus = manifest.find("gpus");
  if (gpus == manifest.end() || !gpus->is_array() || gpus->empty()) {
    return "no GPU";
  }
  const nlohmann::json& first = gpus->front();
  if (!first.is_object()) {
    return "no GPU";
  }
  const auto name = first.find("name");
  if (name == first.end() || !name->is_string() || name->get<std::string>().empty()) {
    return "no GPU";
  }
  return name->get<std::string>();
}

// manifest[key] when it is a non-empty string, else "".
std::string manifest_string(const nlohmann::json& manifest, const char* key) {
  if (!manifest.is_object()) {
    return {};
  }
  const auto value = manifest.find(key);
  return value != manifest.end() && value->is_string() ? value->get<std::string>() : std::string();
}

// "Hardware key `h200`, git commit `1a2b3c4` (with uncommitted changes).\n\n" from what the
// manifest has; empty when it has neither.
std::string provenance_line(const nlohmann::json& manifest) {
  std::vector<std::string> parts;
  const std::string hardware_key = manifest_string(manifest, "hardware_key");
  if (!hardware_key.empty()) {
    parts.push_back(fmt::format("Hardware key `{}`", hardware_key));
  }
  const std::string commit = manifest_string(manifest, "git_commit");
  if (!commit.empty()) {
    const auto dirty = manifest.find("git_dirty");
    const bool uncommitted = dirty != manifest.end() && dirty->is_boolean() && dirty->get<bool>();
    parts.push_back(
        fmt::format("git commit `{}`{}", commit, uncommitted ? " (with uncommitted changes)" : ""));
  }
  if (parts.empty()) {
    return {};
  }
  std::string line = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    line += ", " + parts[i];
  }
  if (hardware_key.empty()) {
    line[0] = 'G';  // "Git commit ..." opens the sentence
  }
  return line + ".\n\n";
}

// A table cell: one line, with the characters that would end or break the cell escaped.
std::string table_cell(std::string_view text) {
  std::string cell;
  for (char c : rf::single_line(text)) {
    if (c == '|') {
      cell += "\\|";
    } else {
      cell += c;
    }
  }
  return cell.empty() ? std::string(rf::kAbsent) : cell;
}

std::string median_cell(const std::optional<VariantMeasurement>& measurement) {
  if (!measurement || measurement->stats.count == 0) {
    return std::string(rf::kAbsent);
  }
  return rf::format_duration_ms(measurement->stats.median);
}

// The optional columns of the main table: present only in runs that have something for them.
struct OptionalColumns {
  bool library = false;    // "Of library": a pair of the run has a library reference
  bool precision = false;  // "Error (rel. RMS)": a pair of the run has errors against a reference
};

std::string table_row(const PairResult& pair, const OptionalColumns& optional) {
  const bool speedup_shown = rf::shows_speedup(pair);
  const std::string speedup =
      speedup_shown ? rf::format_speedup(*pair.speedup) : std::string(rf::kAbsent);
  const std::string verdict = speedup_shown ? pair.speedup->verdict : std::string();
  const std::string roofline = speedup_shown && pair.roofline
                                   ? rf::format_roofline(*pair.roofline, true)
                                   : std::string(rf::kAbsent);
  std::string extra;
  if (optional.library) {
    extra += " " + table_cell(library_format::library_cell(pair)) + " |";
  }
  if (optional.precision) {
    extra += " " + table_cell(precision_format::precision_cell(pair)) + " |";
  }
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} |{} {} |\n", table_cell(pair.target),
                     pair_status_name(pair.status), median_cell(pair.baseline),
                     median_cell(pair.optimized), speedup, table_cell(verdict),
                     table_cell(roofline), extra,
                     table_cell(rf::format_verification(pair.verification)));
}

// One list item per pair that did not pass; a reason of several lines follows as a code block.
std::string outcome_item(const PairResult& pair) {
  const std::string outcome = rf::describe_outcome(pair, true);
  const std::size_t first_break = outcome.find('\n');
  std::string item = fmt::format("- **{}** {}", pair.target, outcome.substr(0, first_break));
  if (!pair.log_file.empty()) {
    item += fmt::format(" (log: `{}`)", pair.log_file);
  }
  item += "\n";
  if (first_break != std::string::npos) {
    item += "\n  ```text\n";
    std::size_t line_start = first_break + 1;
    while (line_start < outcome.size()) {
      std::size_t line_end = outcome.find('\n', line_start);
      if (line_end == std::string::npos) {
        line_end = outcome.size();
      }
      item += "  " + outcome.substr(line_start, line_end - line_start) + "\n";
      line_start = line_end + 1;
    }
    item += "  ```\n\n";
  }
  return item;
}

}  // namespace

std::string render_markdown_summary(const RunResults& results, const nlohmann::json& manifest) {
  std::string text =
      fmt::format("# aisp run {} on {}\n\n",
                  results.run_id.empty() ? "(no run id)" : results.run_id, gpu_name(manifest));
  if (!results.complete) {
    text += "> **Interrupted:** the run stopped before every selected pair finished; the results "
            "below are partial.\n\n";
  }
  const std::string started = results.started_at.empty() ? "?" : results.started_at;
  const std::string finished = results.finished_at.empty() ? "?" : results.finished_at;
  text += fmt::format("Started {}, finished {}. {}.\n\n", started, finished,
                      rf::format_counts(rf::count_statuses(results)));
  text += provenance_line(manifest);
  if (const std::string note = rf::verify_phase_note(results.verify_phase); !note.empty()) {
    text += "> **" + note.substr(0, note.find('.') + 1) + "**" + note.substr(note.find('.') + 1) +
            "\n\n";
  }

  const OptionalColumns optional{library_format::any_library(results),
                                 precision_format::any_precision(results)};
  text += fmt::format("| Target | Status | Baseline median | Optimized median | Speedup [{}] | "
                      "Verdict | Roofline (optimized) |{}{} Verification |\n",
                      rf::confidence_label(results),
                      optional.library
                          ? fmt::format(" Of library [{}] |", rf::confidence_label(results))
                          : std::string(),
                      optional.precision ? " Error (rel. RMS) |" : "");
  text += fmt::format("|:--|:--|--:|--:|:--|:--|:--|{}{}:--|\n", optional.library ? ":--|" : "",
                      optional.precision ? "--:|" : "");
  for (const PairResult& pair : results.pairs) {
    text += table_row(pair, optional);
  }
  if (const std::string library = library_format::render_library_markdown(results);
      !library.empty()) {
    text += "\n" + library;
  }
  if (const std::string precision = precision_format::render_precision_markdown(results);
      !precision.empty()) {
    text += "\n" + precision;
  }

  std::string expectations = rf::format_expectation_counts(results);
  if (!expectations.empty()) {
    expectations[0] = 'C';  // "Compared with the expectations for ..." opens the sentence
    text += "\n## Expectations\n\n" + expectations + ".\n";
    std::string changes;
    for (const PairResult& pair : results.pairs) {
      if (pair.expectation && (pair.expectation->verdict == "regression" ||
                               pair.expectation->verdict == "improvement")) {
        changes += fmt::format("- **{}** {}: {} (recorded: {})\n", pair.target,
                               pair.expectation->verdict, rf::single_line(pair.expectation->detail),
                               rf::single_line(pair.expectation->recorded));
      }
    }
    if (!changes.empty()) {
      text += "\n" + changes;
    }
  }

  text += "\n## Failures and skips\n\n";
  std::string items;
  for (const PairResult& pair : results.pairs) {
    if (pair.status != PairStatus::passed) {
      items += outcome_item(pair);
    } else if (rf::passed_with_failed_checks(pair)) {
      items += fmt::format("- **{}** passed with failed checks, not enforced (--verify-phase "
                           "detect); no speedup is shown: {}\n",
                           pair.target, rf::format_verification(pair.verification));
    }
  }
  text += items.empty() ? "None: every pair passed.\n" : items;
  if (const std::string marks = marks_format::render_marks_markdown(results); !marks.empty()) {
    text += (text.ends_with("\n\n") ? "" : "\n") + marks;
  }
  if (const std::string profiles = profile_format::render_profile_markdown(results);
      !profiles.empty()) {
    text += (text.ends_with("\n\n") ? "" : "\n") + profiles;
  }
  // A code block closing the last item leaves a blank line; the file ends with one newline.
  while (text.size() >= 2 && text.substr(text.size() - 2) == "\n\n") {
    text.pop_back();
  }
  return text;
}

}  // namespace aisp
