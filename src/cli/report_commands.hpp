// The commands that read what runs left behind: `aisp bench report` (report.html of a run),
// `aisp bench compare-runs` (did a candidate run regress against a baseline run?) and
// `aisp bench expectations` (what the committed expectations say). docs/reports.md describes
// them.
#pragma once

#include <optional>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace aisp {

class ReportCommands {
 public:
  // Adds the three subcommands to `bench`. The object must outlive parsing: CLI11 writes the
  // flag values into it.
  void add_to(CLI::App& bench);

  // Runs the one of these commands that was parsed and returns its exit code; nullopt when none
  // was. Bad input is reported on stderr, never thrown: a path that names no run, a bad flag
  // value or an unknown hardware key exits 2; a damaged results or expectations file (the
  // message names it and the JSON path of the bad field) or a file that cannot be written
  // exits 1; with --fail-on-regression, a regression exits 1.
  std::optional<int> run_if_parsed();

 private:
  int write_report();
  int compare_two_runs();
  int list_expectations();

  CLI::App* report_ = nullptr;
  std::string report_input_;
  std::string report_output_;

  CLI::App* compare_ = nullptr;
  std::string compare_baseline_;
  std::string compare_candidate_;
  std::string compare_csv_;
  std::string compare_markdown_;
  bool compare_json_ = false;
  std::string compare_threshold_percent_;  // as typed; RunComparisonSettings's default if absent
  bool compare_fail_on_regression_ = false;

  CLI::App* expectations_ = nullptr;
  std::string expectations_hardware_;
  std::string expectations_min_speedup_text_;  // as typed; applies only when given
  double expectations_min_speedup_ = 0;
  bool expectations_json_ = false;
  std::string expectations_chapters_dir_;
};

}  // namespace aisp
