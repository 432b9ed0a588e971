#include "cli/report_commands.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli/usage_error.hpp"
#include "policy/expectations.hpp"
#include "policy/run_comparison.hpp"
#include "report/comparison_report.hpp"
#include "report/html_report.hpp"
#include "report/report_format.hpp"
#include "results/results_json.hpp"
#include "results/run_input.hpp"
#include "system/build_info.hpp"

namespace aisp {
namespace {

namespace fs = std::filesystem;
namespace rf = report_format;

// compare-runs' --threshold when none is given: the comparison's own default, in percent.
double default_threshold_percent() { return RunComparisonSettings{}.threshold * 100; }

bool is_existing_directory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

// Refuses an output path whose directory does not exist, before any work is done.
void require_output_directory(const std::string& flag, const fs::path& output) {
  const fs::path directory = output.parent_path();
  if (!directory.empty() && !is_existing_directory(directory)) {
    throw UsageError(fmt::format("{} {}: the directory {} does not exist; create it or "
                                       "choose another path",
                                       flag, output.string(), directory.string()));
  }
  if (is_existing_directory(output)) {
    throw UsageError(
        fmt::format("{} {}: is a directory; give a file name", flag, output.string()));
  }
}

void print_warnings(const LoadedRun& run, std::string_view which) {
  for (const std::string& warning : run.warnings) {
    std::cerr << "warning: " << which << warning << "\n";
  }
}

// How a report at `output` links to the run's logs: a relative path to the run directory, or ""
// (logs named, not linked) when the run has no logs folder to link to.
std::string log_href_prefix(const fs::path& run_dir, const fs::path& output) {
  if (!is_existing_directory(run_dir / "logs")) {
    return {};
  }
  std::error_code error;
  const fs::path from = fs::weakly_canonical(fs::absolute(output).parent_path(), error);
  const fs::path to = fs::weakly_canonical(fs::absolute(run_dir), error);
  if (error) {
    return {};
  }
  const fs::path relative = to.lexically_relative(from);
  if (relative.empty() || relative == ".") {
    return "./";
  }
  return relative.generic_string() + "/";
}

// --chapters-dir, else the source tree's chapters, else ./chapters.
fs::path resolve_chapters_dir(const std::string& given) {
  if (!given.empty()) {
    if (!is_existing_directory(given)) {
      throw UsageError(fmt::format("--chapters-dir {}: not a directory; give the folder "
                                         "that holds the chNN_<topic>/ chapter folders",
                                         given));
    }
    return given;
  }
  const std::string& source_dir = build_info().source_dir;
  if (!source_dir.empty() && is_existing_directory(fs::path(source_dir) / "chapters")) {
    return fs::path(source_dir) / "chapters";
  }
  if (is_existing_directory("chapters")) {
    return "chapters";
  }
  throw UsageError(fmt::format(
      "no chapters directory: neither {}/chapters (the source tree this binary was built from) "
      "nor ./chapters exists; pass --chapters-dir DIR",
      source_dir.empty() ? "(unknown source tree)" : source_dir));
}

bool is_valid_hardware_key(const std::string& key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-';
  });
}

struct ListedExpectation {
  std::string chapter_folder;  // "ch07_memory_access"
  std::string target;
  ExpectationEntry entry;
};

std::string format_entry_speedup(const ExpectationEntry& entry) {
  Speedup speedup;
  speedup.value = entry.speedup;
  speedup.ci_low = entry.speedup_ci_low;
  speedup.ci_high = entry.speedup_ci_high;
  return rf::format_speedup(speedup);
}

std::string format_entry_roofline(const ExpectationEntry& entry) {
  if (!entry.roofline_fraction) {
    return std::string(rf::kAbsent);
  }
  std::string text = rf::format_percent(*entry.roofline_fraction);
  return entry.ceiling.empty() ? text : text + " of " + entry.ceiling;
}

std::string render_expectations_text(const std::vector<ListedExpectation>& listed) {
  std::vector<std::vector<std::string>> rows = {{"Target", "Baseline", "Optimized", "Speedup [CI]",
                                                 "Roofline", "Measured on", "Date", "Commit",
                                                 "Run", "Threshold"}};
  for (const ListedExpectation& item : listed) {
    const ExpectationEntry& entry = item.entry;
    rows.push_back({item.target, rf::format_duration_ms(entry.baseline_ms),
                    rf::format_duration_ms(entry.optimized_ms), format_entry_speedup(entry),
                    format_entry_roofline(entry), entry.gpu, entry.date,
                    entry.git_commit.substr(0, 12), entry.run_id,
                    entry.threshold ? rf::format_percent(*entry.threshold) + " (own)"
                                    : std::string("default")});
  }
  return rf::render_columns(rows);
}

nlohmann::ordered_json expectation_to_json(const ListedExpectation& item) {
  const ExpectationEntry& entry = item.entry;
  const auto number = [](double value) {
    return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
  };
  return nlohmann::ordered_json{
      {"target", item.target},
      {"chapter_folder", item.chapter_folder},
      {"baseline_ms", number(entry.baseline_ms)},
      {"optimized_ms", number(entry.optimized_ms)},
      {"speedup", number(entry.speedup)},
      {"speedup_ci_low", number(entry.speedup_ci_low)},
      {"speedup_ci_high", number(entry.speedup_ci_high)},
      {"roofline_fraction", entry.roofline_fraction ? number(*entry.roofline_fraction)
                                                    : nlohmann::ordered_json(nullptr)},
      {"ceiling", entry.ceiling.empty() ? nlohmann::ordered_json(nullptr)
                                        : nlohmann::ordered_json(entry.ceiling)},
      {"gpu", entry.gpu},
      {"git_commit", entry.git_commit},
      {"date", entry.date},
      {"run_id", entry.run_id},
      {"threshold", entry.threshold ? number(*entry.threshold) : nlohmann::ordered_json(nullptr)},
      {"threshold_reason", entry.threshold ? nlohmann::ordered_json(entry.threshold_reason)
                                           : nlohmann::ordered_json(nullptr)},
  };
}

}  // namespace

void ReportCommands::add_to(CLI::App& bench) {
  report_ = bench.add_subcommand(
      "report", "Write a self-contained HTML report (summary, speedup and roofline charts, "
                "per-pair detail) of a run.");
  report_
      ->add_option("run", report_input_,
                   "A run directory (artifacts/runs/<run-id>) or its "
                   "results.json.")
      ->required()
      ->type_name("RUN");
  report_
      ->add_option("-o,--output", report_output_,
                   "Where to write the page. Default: <run dir>/report.html.")
      ->type_name("FILE");

  compare_ = bench.add_subcommand("compare-runs",
                                  "Compare a candidate run with a baseline run, target by target: "
                                  "regression, improvement or no significant change.");
  compare_
      ->add_option("--baseline", compare_baseline_,
                   "The run to compare against: a run directory or its results.json.")
      ->required()
      ->type_name("RUN");
  compare_
      ->add_option("--candidate", compare_candidate_,
                   "The run under test: a run directory or its results.json.")
      ->required()
      ->type_name("RUN");
  compare_
      ->add_option("--threshold", compare_threshold_percent_,
                   fmt::format("Practical threshold in percent: a change is called only beyond it "
                               "(and when its confidence interval excludes no change). Default "
                               "{:g}.",
                               default_threshold_percent()))
      ->type_name("PERCENT");
  compare_->add_option("--csv", compare_csv_, "Also write the comparison as CSV to FILE.")
      ->type_name("FILE");
  compare_
      ->add_option("--markdown", compare_markdown_,
                   "Also write the comparison as markdown to FILE.")
      ->type_name("FILE");
  compare_->add_flag("--json", compare_json_, "Print JSON on stdout instead of text.");
  compare_->add_flag("--fail-on-regression", compare_fail_on_regression_,
                     "Exit 1 when a target regressed or fails in the candidate run.");

  expectations_ = bench.add_subcommand(
      "expectations", "List the committed expectations (speedups known on a kind of hardware).");
  expectations_
      ->add_option("--hardware", expectations_hardware_,
                   "Hardware key: h200, h100_sxm, 2x_h200, ... (`aisp system info` "
                   "prints this machine's).")
      ->required()
      ->type_name("KEY");
  expectations_
      ->add_option("--min-speedup", expectations_min_speedup_text_,
                   "Only entries whose expected speedup is at least X.")
      ->type_name("X");
  expectations_->add_flag("--json", expectations_json_, "Print a JSON object instead of text.");
  expectations_
      ->add_option("--chapters-dir", expectations_chapters_dir_,
                   "The folder of chNN_<topic>/ chapters. Default: the source tree's "
                   "chapters/, else ./chapters.")
      ->type_name("DIR");
}

std::optional<int> ReportCommands::run_if_parsed() {
  if (report_ == nullptr ||
      (!report_->parsed() && !compare_->parsed() && !expectations_->parsed())) {
    return std::nullopt;
  }
  try {
    if (report_->parsed()) {
      return write_report();
    }
    if (compare_->parsed()) {
      return compare_two_runs();
    }
    return list_expectations();
  } catch (const RunNotFoundError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const ResultsFormatError& error) {
    // A damaged file: exit 1, as for a pair whose numbers cannot be trusted.
    std::cerr << "error: " << error.what() << "\n";
    return kExitPairFailed;
  } catch (const std::runtime_error& error) {
    // A file that cannot be read or written, or a corrupt expectations file (the message names it).
    std::cerr << "error: " << error.what() << "\n";
    return kExitPairFailed;
  }
}

int ReportCommands::write_report() {
  const LoadedRun run = load_run(report_input_);
  print_warnings(run, "");
  const fs::path output =
      report_output_.empty() ? run.run_dir / "report.html" : fs::path(report_output_);
  require_output_directory("--output", output);

  HtmlReportOptions options;
  options.results_source = run.results_file.string();
  options.log_href_prefix = log_href_prefix(run.run_dir, output);
  options.generator = "aisp " + build_info().version;
  write_file_atomically(output, render_html_report(run.results, run.manifest, options));
  std::cout << "Wrote " << output.string() << " ("
            << rf::format_counts(rf::count_statuses(run.results)) << ").\n";
  return kExitOk;
}

int ReportCommands::compare_two_runs() {
  RunComparisonSettings settings;
  if (compare_->count("--threshold") > 0) {
    settings.threshold = fraction_from_percent_flag("--threshold", compare_threshold_percent_,
                                                    default_threshold_percent());
  }
  if (!compare_csv_.empty()) {
    require_output_directory("--csv", compare_csv_);
  }
  if (!compare_markdown_.empty()) {
    require_output_directory("--markdown", compare_markdown_);
  }
  const LoadedRun baseline = load_run(compare_baseline_);
  const LoadedRun candidate = load_run(compare_candidate_);
  print_warnings(baseline, "baseline run: ");
  print_warnings(candidate, "candidate run: ");

  const RunComparison comparison = aisp::compare_runs(
      baseline.results, baseline.manifest, candidate.results, candidate.manifest, settings);
  if (!compare_csv_.empty()) {
    write_file_atomically(compare_csv_, render_comparison_csv(comparison));
  }
  if (!compare_markdown_.empty()) {
    write_file_atomically(compare_markdown_, render_comparison_markdown(comparison));
  }
  if (compare_json_) {
    std::cout << comparison_to_json(comparison).dump(2) << "\n";
  } else {
    std::cout << render_comparison_text(comparison);
  }
  const std::size_t blocking = count_blocking_changes(comparison);
  if (compare_fail_on_regression_ && blocking > 0) {
    std::cerr << "compare-runs: " << blocking << " target" << (blocking == 1 ? "" : "s")
              << " regressed or failed in the candidate run; exit 1 (--fail-on-regression)\n";
    return kExitPairFailed;
  }
  return kExitOk;
}

int ReportCommands::list_expectations() {
  if (!is_valid_hardware_key(expectations_hardware_)) {
    throw UsageError(fmt::format("--hardware {}: a hardware key is lowercase letters, "
                                       "digits, '_', '+' and '-' (h200, h100_sxm, 2x_h200)",
                                       expectations_hardware_));
  }
  const bool filtered = expectations_->count("--min-speedup") > 0;
  if (filtered) {
    expectations_min_speedup_ = number_from_flag("--min-speedup", expectations_min_speedup_text_,
                                                 "a finite number, e.g. 1.5");
  }
  const fs::path chapters_dir = resolve_chapters_dir(expectations_chapters_dir_);

  std::vector<fs::path> chapter_dirs;
  for (const fs::directory_entry& item : fs::directory_iterator(chapters_dir)) {
    if (item.is_directory()) {
      chapter_dirs.push_back(item.path());
    }
  }
  std::sort(chapter_dirs.begin(), chapter_dirs.end());

  std::set<std::string> known_keys;
  std::vector<ListedExpectation> listed;
  std::size_t files = 0, total = 0;
  for (const fs::path& chapter_dir : chapter_dirs) {
    const fs::path folder = chapter_dir / "expectations";
    if (!is_existing_directory(folder)) {
      continue;
    }
    for (const fs::directory_entry& item : fs::directory_iterator(folder)) {
      if (item.is_regular_file() && item.path().extension() == ".json") {
        known_keys.insert(item.path().stem().string());
      }
    }
    const fs::path file = expectations_file(chapter_dir, expectations_hardware_);
    if (!fs::is_regular_file(file)) {
      continue;
    }
    ++files;
    for (const auto& [target, entry] : load_expectations(file)) {
      ++total;
      if (filtered && !(entry.speedup >= expectations_min_speedup_)) {
        continue;
      }
      listed.push_back({chapter_dir.filename().string(), target, entry});
    }
  }
  if (files == 0) {
    if (known_keys.empty()) {
      throw UsageError(fmt::format(
          "no expectations files under {}/*/expectations/: none are recorded yet; record them "
          "with `aisp bench run --update-expectations` on the hardware",
          chapters_dir.string()));
    }
    std::string keys;
    for (const std::string& key : known_keys) {
      keys += (keys.empty() ? "" : ", ") + key;
    }
    throw UsageError(fmt::format(
        "no expectations for hardware key '{}' under {}; known keys: {}. Expectations are "
        "recorded with `aisp bench run --update-expectations` on that hardware",
        expectations_hardware_, chapters_dir.string(), keys));
  }

  const std::string filter_text =
      filtered ? fmt::format(" with speedup >= {:g}", expectations_min_speedup_) : "";
  if (expectations_json_) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const ListedExpectation& item : listed) {
      entries.push_back(expectation_to_json(item));
    }
    nlohmann::ordered_json output{
        {"hardware_key", expectations_hardware_},
        {"chapters_dir", chapters_dir.string()},
        {"min_speedup", filtered ? nlohmann::ordered_json(expectations_min_speedup_)
                                 : nlohmann::ordered_json(nullptr)},
        {"entries", entries}};
    std::cout << output.dump(2) << "\n";
    return kExitOk;
  }
  if (listed.empty()) {
    std::cout << fmt::format("No expectations for {}{} ({} recorded in {} chapter{} under {}).\n",
                             expectations_hardware_, filter_text, total, files,
                             files == 1 ? "" : "s", chapters_dir.string());
    return kExitOk;
  }
  std::cout << render_expectations_text(listed);
  std::cout << fmt::format("\n{} expectation{} for {}{} ({} recorded in {} chapter{} under {}).\n",
                           listed.size(), listed.size() == 1 ? "" : "s", expectations_hardware_,
                           filter_text, total, files, files == 1 ? "" : "s", chapters_dir.string());
  return kExitOk;
}

}  // namespace aisp
