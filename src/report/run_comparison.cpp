#include "report/run_comparison.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "measure/bootstrap.hpp"
#include "measure/statistics.hpp"
#include "report/csv_export.hpp"
#include "report/report_format.hpp"
#include "report/run_input.hpp"

namespace aisp {
namespace {

using report_format::kAbsent;

constexpr std::array kAllVerdicts = {
    ChangeVerdict::regression, ChangeVerdict::improvement, ChangeVerdict::no_significant_change,
    ChangeVerdict::failed,     ChangeVerdict::skipped,     ChangeVerdict::not_comparable,
    ChangeVerdict::added,      ChangeVerdict::removed,
};

bool passed_verified(const PairResult& pair) {
  return pair.status == PairStatus::passed && pair.verification.passed;
}

bool is_failure(PairStatus status) {
  return status == PairStatus::failed || status == PairStatus::timed_out ||
         status == PairStatus::crashed || status == PairStatus::quarantined;
}

// "crashed: SIGSEGV ..." or "outputs did not verify: failed: within_tolerance", on one line.
std::string outcome(const PairResult& pair) {
  if (pair.status == PairStatus::passed && !pair.verification.passed) {
    return "outputs did not verify (" + report_format::format_verification(pair.verification) + ")";
  }
  return report_format::single_line(report_format::describe_outcome(pair, true), 200);
}

std::string signature_text(const PairResult& pair) {
  std::string text;
  for (const auto& [name, value] : pair.signature) {
    text += (text.empty() ? "" : " ") + name + "=" + value;
  }
  return text.empty() ? "(none)" : text;
}

// "+10.3%": a time ratio as the change of time it means.
std::string percent_change(double ratio) {
  if (!std::isfinite(ratio)) {
    return std::string(kAbsent);
  }
  const double percent = (ratio - 1.0) * 100.0;
  if (std::fabs(percent) < 0.05) {
    return "0.0%";
  }
  return fmt::format("{:+.1f}%", percent);
}

// "+10.3% [+9.9%, +10.8%]"
std::string interval_text(double ratio, double ci_low, double ci_high) {
  return fmt::format("{} [{}, {}]", percent_change(ratio), percent_change(ci_low),
                     percent_change(ci_high));
}

std::string change_with_interval(const VariantChange& change) {
  if (change.verdict == ChangeVerdict::not_comparable) {
    return std::string(kAbsent);
  }
  return interval_text(change.ratio, change.ci_low, change.ci_high);
}

const std::vector<double>& compared_samples(const VariantMeasurement& measurement) {
  return measurement.method == TimingMethod::host_clock ? measurement.host_ms
                                                        : measurement.event_ms;
}

const char* samples_name(const VariantMeasurement& measurement) {
  return measurement.method == TimingMethod::host_clock ? "host_ms" : "event_ms";
}

// Judges two stored series (`label`: "time" or "first_token") by the rule; `what` names the series
// in the reasons it was not compared.
void judge_change(const std::vector<double>& before_ms, const std::vector<double>& after_ms,
                  const std::string& what, const std::string& label,
                  const RunComparisonSettings& settings, TimeChange& change) {
  change.baseline_run_samples = before_ms.size();
  change.candidate_run_samples = after_ms.size();
  if (before_ms.size() < 2 || after_ms.size() < 2) {
    change.detail = fmt::format("{} has {} stored sample(s) in the baseline run and {} in the "
                                "candidate run; an interval needs at least 2 in each",
                                what, before_ms.size(), after_ms.size());
    return;
  }
  Speedup ratio;
  try {
    // bootstrap_speedup gives median(first) / median(second): candidate over baseline time.
    ratio = bootstrap_speedup(after_ms, before_ms, settings.confidence, settings.resamples,
                              settings.seed);
    change.baseline_run_median_ms = median(before_ms);
    change.candidate_run_median_ms = median(after_ms);
  } catch (const std::invalid_argument& error) {
    change.detail =
        fmt::format("{}: the stored samples cannot be compared: {}", what, error.what());
    return;
  }
  change.ratio = ratio.value;
  change.ci_low = ratio.ci_low;
  change.ci_high = ratio.ci_high;

  const double slower_limit = 1.0 + settings.threshold;
  const double faster_limit = 1.0 / (1.0 + settings.threshold);
  const std::string interval = interval_text(change.ratio, change.ci_low, change.ci_high);
  const std::string threshold = fmt::format("{:g}%", settings.threshold * 100);
  if (change.ci_low > 1.0 && change.ratio > slower_limit) {
    change.verdict = ChangeVerdict::regression;
    change.detail = fmt::format("slower: {} {}", label, interval);
  } else if (change.ci_high < 1.0 && change.ratio < faster_limit) {
    change.verdict = ChangeVerdict::improvement;
    change.detail = fmt::format("faster: {} {}", label, interval);
  } else {
    change.verdict = ChangeVerdict::no_significant_change;
    if (change.ci_low > 1.0 || change.ci_high < 1.0) {
      change.detail = fmt::format("{} {}: the interval excludes no change, but the change is "
                                  "within the {} threshold",
                                  label, interval, threshold);
    } else {
      change.detail = fmt::format("{} {}: the interval includes no change", label, interval);
    }
  }
}

const MarkMeasurement* find_mark(const VariantMeasurement& measurement, const std::string& name) {
  const auto found =
      std::find_if(measurement.marks.begin(), measurement.marks.end(),
                   [&name](const MarkMeasurement& mark) { return mark.name == name; });
  return found == measurement.marks.end() ? nullptr : &*found;
}

// Each mark of either run: compared where both runs have it, listed as missing otherwise.
void compare_marks(const VariantMeasurement& before, const VariantMeasurement& after,
                   const RunComparisonSettings& settings, VariantChange& change) {
  for (const MarkMeasurement& mark : after.marks) {
    const MarkMeasurement* earlier = find_mark(before, mark.name);
    if (earlier == nullptr) {
      change.marks_missing.push_back(mark.name + " (candidate run only)");
      continue;
    }
    MarkChange mark_change;
    mark_change.name = mark.name;
    judge_change(earlier->ms, mark.ms, fmt::format("mark {} of {}", mark.name, after.variant),
                 mark.name, settings, mark_change);
    change.marks.push_back(std::move(mark_change));
  }
  for (const MarkMeasurement& mark : before.marks) {
    if (find_mark(after, mark.name) == nullptr) {
      change.marks_missing.push_back(mark.name + " (baseline run only)");
    }
  }
}

VariantChange compare_variant(const VariantMeasurement& before, const VariantMeasurement& after,
                              const RunComparisonSettings& settings) {
  VariantChange change;
  change.variant = after.variant;
  change.samples = samples_name(after);
  const std::vector<double>& before_ms = compared_samples(before);
  const std::vector<double>& after_ms = compared_samples(after);
  change.baseline_run_samples = before_ms.size();
  change.candidate_run_samples = after_ms.size();
  if (change.samples != samples_name(before)) {
    change.detail = fmt::format("{} was timed by {} in the baseline run and by {} in the candidate "
                                "run; host and device times are not comparable",
                                after.variant, timing_method_name(before.method),
                                timing_method_name(after.method));
    return change;
  }
  judge_change(before_ms, after_ms, fmt::format("{} ({})", after.variant, change.samples), "time",
               settings, change);
  compare_marks(before, after, settings, change);
  return change;
}

// "first_token +12.0% [+10.1%, +13.9%] regression, decode_done 0.0% [...] no significant change"
std::string marks_summary(const VariantChange& change) {
  std::string text;
  for (const MarkChange& mark : change.marks) {
    text += text.empty() ? "" : ", ";
    text += mark.verdict == ChangeVerdict::not_comparable
                ? mark.name + " not comparable (" + mark.detail + ")"
                : fmt::format("{} {} {}", mark.name,
                              interval_text(mark.ratio, mark.ci_low, mark.ci_high),
                              change_verdict_name(mark.verdict));
  }
  for (const std::string& missing : change.marks_missing) {
    text += (text.empty() ? "" : ", ") + missing;
  }
  return text;
}

// The optimized variant's marks move the target's verdict: a slower first token is a regression
// even when the whole run did not slow down.
void apply_mark_verdicts(TargetComparison& comparison) {
  const VariantChange& optimized = *comparison.optimized;
  if (optimized.marks.empty() && optimized.marks_missing.empty()) {
    return;
  }
  const auto marks_with = [&optimized](ChangeVerdict verdict) {
    std::string names;
    for (const MarkChange& mark : optimized.marks) {
      if (mark.verdict == verdict) {
        names += (names.empty() ? "" : ", ") + mark.name;
      }
    }
    return names;
  };
  const std::string slower = marks_with(ChangeVerdict::regression);
  const std::string faster = marks_with(ChangeVerdict::improvement);
  if (comparison.verdict == ChangeVerdict::no_significant_change ||
      comparison.verdict == ChangeVerdict::improvement) {
    if (!slower.empty()) {
      comparison.verdict = ChangeVerdict::regression;
      comparison.detail = fmt::format("mark {} slower; {}", slower, comparison.detail);
    } else if (!faster.empty() && comparison.verdict == ChangeVerdict::no_significant_change) {
      comparison.verdict = ChangeVerdict::improvement;
      comparison.detail = fmt::format("mark {} faster; {}", faster, comparison.detail);
    }
  }
  comparison.detail += fmt::format("; marks of {}: {}", optimized.variant, marks_summary(optimized));
}

TargetComparison compare_target(const PairResult& before, const PairResult& after,
                                const RunComparisonSettings& settings) {
  TargetComparison comparison;
  comparison.target = after.target;
  if (report_format::shows_speedup(before)) {
    comparison.baseline_run_speedup = before.speedup;
  }
  if (report_format::shows_speedup(after)) {
    comparison.candidate_run_speedup = after.speedup;
  }

  if (is_failure(after.status) || (after.status == PairStatus::passed && !passed_verified(after))) {
    comparison.verdict = ChangeVerdict::failed;
    comparison.detail = "candidate run: " + outcome(after);
    if (!passed_verified(before)) {
      comparison.detail += "; baseline run: " + outcome(before);
    }
    return comparison;
  }
  if (after.status != PairStatus::passed) {
    comparison.verdict = ChangeVerdict::skipped;
    comparison.detail = "candidate run: " + outcome(after);
    return comparison;
  }
  comparison.verdict = ChangeVerdict::not_comparable;
  if (!passed_verified(before)) {
    comparison.detail = "baseline run: " + outcome(before) +
                        "; it passes in the candidate run, with nothing to "
                        "compare its times with";
    return comparison;
  }
  if (before.signature != after.signature) {
    comparison.detail = fmt::format("the problem changed: signature {} in the baseline run, {} in "
                                    "the candidate run",
                                    signature_text(before), signature_text(after));
    return comparison;
  }
  if (!before.optimized || !after.optimized || !before.baseline || !after.baseline) {
    comparison.detail =
        fmt::format("not timed in the {} run (a `bench verify` run?)",
                    !before.optimized || !before.baseline ? "baseline" : "candidate");
    return comparison;
  }

  comparison.optimized = compare_variant(*before.optimized, *after.optimized, settings);
  comparison.baseline = compare_variant(*before.baseline, *after.baseline, settings);
  comparison.verdict = comparison.optimized->verdict;
  comparison.detail = comparison.optimized->detail;
  apply_mark_verdicts(comparison);
  if (comparison.optimized->verdict == ChangeVerdict::regression &&
      comparison.baseline->verdict == ChangeVerdict::regression) {
    comparison.detail += fmt::format("; the baseline variant is slower too ({}): look at the "
                                     "machine (clocks, load, driver) before the code",
                                     percent_change(comparison.baseline->ratio));
  }
  if (before.bytes != after.bytes || before.flops != after.flops) {
    comparison.detail += fmt::format("; note: the declared workload changed (bytes {:g} -> {:g}, "
                                     "FLOPs {:g} -> {:g})",
                                     before.bytes, after.bytes, before.flops, after.flops);
  }
  return comparison;
}

std::string hardware_label(const nlohmann::json& manifest) {
  const std::string key = manifest_hardware_key(manifest);
  const std::string gpu = manifest_gpu_name(manifest);
  if (key.empty()) {
    return gpu;
  }
  return gpu.empty() ? key : fmt::format("{} ({})", key, gpu);
}

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
  return change ? change_with_interval(*change) : std::string(kAbsent);
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
  nlohmann::ordered_json variant = time_change_json(
      {{"variant", change->variant}, {"samples", change->samples}}, *change);
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

std::string_view change_verdict_name(ChangeVerdict verdict) {
  switch (verdict) {
  case ChangeVerdict::regression:
    return "regression";
  case ChangeVerdict::improvement:
    return "improvement";
  case ChangeVerdict::no_significant_change:
    return "no significant change";
  case ChangeVerdict::failed:
    return "failed";
  case ChangeVerdict::skipped:
    return "skipped";
  case ChangeVerdict::not_comparable:
    return "not comparable";
  case ChangeVerdict::added:
    return "added";
  case ChangeVerdict::removed:
    return "removed";
  }
  return "unknown";
}

RunComparison compare_runs(const RunResults& baseline_run, const nlohmann::json& baseline_manifest,
                           const RunResults& candidate_run,
                           const nlohmann::json& candidate_manifest,
                           const RunComparisonSettings& settings) {
  if (!(settings.threshold >= 0 && settings.threshold < 10)) {
    throw std::invalid_argument(fmt::format("threshold {:g}% is outside [0%, 1000%); 2% is typical",
                                            settings.threshold * 100));
  }
  if (!(settings.confidence > 0 && settings.confidence < 1)) {
    throw std::invalid_argument(
        fmt::format("confidence {:g} is outside (0, 1); e.g. 0.95", settings.confidence));
  }
  if (settings.resamples < 100) {
    throw std::invalid_argument(
        fmt::format("{} resamples are too few for an interval; use 2000", settings.resamples));
  }

  RunComparison comparison;
  comparison.settings = settings;
  comparison.baseline_run_id = baseline_run.run_id;
  comparison.candidate_run_id = candidate_run.run_id;
  comparison.baseline_hardware = hardware_label(baseline_manifest);
  comparison.candidate_hardware = hardware_label(candidate_manifest);
  comparison.baseline_commit = manifest_git_commit(baseline_manifest);
  comparison.candidate_commit = manifest_git_commit(candidate_manifest);

  const std::string baseline_key = manifest_hardware_key(baseline_manifest);
  const std::string candidate_key = manifest_hardware_key(candidate_manifest);
  if (!baseline_key.empty() && !candidate_key.empty() && baseline_key != candidate_key) {
    comparison.warnings.push_back(fmt::format(
        "the runs are on different hardware (baseline run {}, candidate run {}): every change "
        "includes the hardware's",
        baseline_key, candidate_key));
  } else if (baseline_key.empty() || candidate_key.empty()) {
    comparison.warnings.push_back(
        fmt::format("the hardware of the {} run is unknown (no manifest.json): make sure both "
                    "ran on the same kind of machine",
                    baseline_key.empty() ? "baseline" : "candidate"));
  }
  if (!baseline_run.complete) {
    comparison.warnings.push_back(
        "the baseline run is incomplete (interrupted): targets it lacks are listed as added");
  }
  if (!candidate_run.complete) {
    comparison.warnings.push_back(
        "the candidate run is incomplete (interrupted): targets it lacks are listed as removed");
  }

  std::map<std::string, const PairResult*> candidate_by_target;
  for (const PairResult& pair : candidate_run.pairs) {
    candidate_by_target.emplace(pair.target, &pair);
  }
  std::map<std::string, bool> in_baseline_run;
  for (const PairResult& before : baseline_run.pairs) {
    if (!in_baseline_run.emplace(before.target, true).second) {
      continue;  // a target listed twice is compared once
    }
    const auto after = candidate_by_target.find(before.target);
    if (after == candidate_by_target.end()) {
      TargetComparison removed;
      removed.target = before.target;
      removed.verdict = ChangeVerdict::removed;
      removed.detail = "only in the baseline run";
      comparison.targets.push_back(std::move(removed));
      continue;
    }
    comparison.targets.push_back(compare_target(before, *after->second, settings));
  }
  for (const PairResult& after : candidate_run.pairs) {
    if (in_baseline_run.emplace(after.target, true).second) {
      TargetComparison added;
      added.target = after.target;
      added.verdict = ChangeVerdict::added;
      added.detail = "only in the candidate run";
      if (report_format::shows_speedup(after)) {
        added.candidate_run_speedup = after.speedup;
      }
      comparison.targets.push_back(std::move(added));
    }
  }
  return comparison;
}

std::size_t count_blocking_changes(const RunComparison& comparison) {
  return static_cast<std::size_t>(
      std::count_if(comparison.targets.begin(), comparison.targets.end(), [](const auto& target) {
        return target.verdict == ChangeVerdict::regression ||
               target.verdict == ChangeVerdict::failed;
      }));
}

std::string format_verdict_counts(const RunComparison& comparison) {
  std::string text = fmt::format("{} target{}", comparison.targets.size(),
                                 comparison.targets.size() == 1 ? "" : "s");
  std::string counts;
  for (ChangeVerdict verdict : kAllVerdicts) {
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
    row.push_back(target.optimized ? marks_summary(*target.optimized) : "");
    append_line(text, row);
  }
  return text;
}

nlohmann::ordered_json comparison_to_json(const RunComparison& comparison) {
  nlohmann::ordered_json counts = nlohmann::ordered_json::object();
  for (ChangeVerdict verdict : kAllVerdicts) {
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
