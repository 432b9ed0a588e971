#include "cli/integrity_commands.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "cli/usage_error.hpp"
#include "core/pair_catalog.hpp"
#include "core/variant_registry.hpp"
#include "policy/quarantine.hpp"
#include "report/audit_report.hpp"
#include "report/quarantine_report.hpp"
#include "results/artifacts_layout.hpp"
#include "results/results_json.hpp"
#include "results/run_input.hpp"
#include "verify/contract_audit.hpp"

namespace aisp {
namespace {

namespace fs = std::filesystem;

bool is_existing_directory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

bool is_existing_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// The newest run directory under <artifacts>/runs: run ids begin with their UTC start time, so
// the greatest name is the latest run. Only directories a run wrote (a manifest) count.
fs::path latest_run(const fs::path& artifacts_dir) {
  const fs::path runs = artifacts::runs_dir(artifacts_dir);
  fs::path latest;
  std::error_code error;
  if (is_existing_directory(runs)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(runs, error)) {
      if (entry.is_directory() && is_existing_file(entry.path() / "manifest.json") &&
          (latest.empty() || entry.path().filename() > latest.filename())) {
        latest = entry.path();
      }
    }
  }
  if (latest.empty()) {
    throw RunNotFoundError(fmt::format("no runs under {}: run `aisp bench run` (or `bench "
                                       "verify`) first, or name a run directory",
                                       runs.string()));
  }
  return latest;
}

// quarantine.json of the run `run` names: a run directory, its quarantine.json, or a run id
// under <artifacts>/runs; the latest run when `run` is empty.
fs::path quarantine_file_of(const std::string& run, const fs::path& artifacts_dir) {
  fs::path directory;
  if (run.empty()) {
    directory = latest_run(artifacts_dir);
  } else if (is_existing_file(run)) {
    return run;
  } else if (is_existing_directory(run)) {
    directory = run;
  } else if (is_existing_directory(artifacts::run_dir(artifacts_dir, run))) {
    directory = artifacts::run_dir(artifacts_dir, run);
  } else {
    throw RunNotFoundError(fmt::format(
        "no run '{}': neither a run directory nor a run id under {}; give a run directory "
        "(artifacts/runs/<run-id>), its quarantine.json, or a run id",
        run, artifacts::runs_dir(artifacts_dir).string()));
  }
  const fs::path file = directory / "quarantine.json";
  if (!is_existing_file(file)) {
    throw RunNotFoundError(fmt::format(
        "{} has no quarantine.json: it is not a run directory, or the run was made by an aisp "
        "that did not write quarantine files yet",
        directory.string()));
  }
  return file;
}

}  // namespace

void IntegrityCommands::add_to(CLI::App& bench) {
  audit_ = bench.add_subcommand(
      "audit", "Check every pair's contract (variants, requirements, workload, tolerance, file "
               "names, README) without running a kernel or needing a GPU.");
  audit_
      ->add_option("-t,--target", audit_targets_,
                   "A chapter, pair or target to audit (as for `bench run`); repeat or separate "
                   "with commas. Default: every pair, and every variant that did not pair up.")
      ->type_name("TARGET");
  audit_->add_flag("--all", audit_all_, "Audit every pair (the default without -t).");
  audit_->add_flag("--json", audit_json_, "Print a JSON object instead of the table.");

  quarantine_ = bench.add_subcommand(
      "quarantine-report", "Print the pairs a run quarantined and the checks that failed.");
  quarantine_
      ->add_option("run", quarantine_run_,
                   "A run directory (artifacts/runs/<run-id>), its quarantine.json, or a run id. "
                   "Default: the latest run under --artifacts-dir.")
      ->type_name("RUN");
  quarantine_
      ->add_option("--artifacts-dir", quarantine_artifacts_dir_,
                   fmt::format("Where runs are: <DIR>/runs/<run-id>/. Default: {}.",
                               artifacts::kDefaultDir))
      ->type_name("DIR");
  quarantine_->add_flag("--json", quarantine_json_, "Print the quarantine file as JSON.");
}

std::optional<int> IntegrityCommands::run_if_parsed() {
  if (audit_ == nullptr || (!audit_->parsed() && !quarantine_->parsed())) {
    return std::nullopt;
  }
  try {
    return audit_->parsed() ? audit() : quarantine_report();
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const TargetError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const RunNotFoundError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const ResultsFormatError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitPairFailed;  // a damaged file, as for `bench report`
  } catch (const std::runtime_error& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitPairFailed;
  }
}

int IntegrityCommands::audit() {
  if (audit_all_ && !audit_targets_.empty()) {
    throw UsageError("--all and -t exclude each other: --all audits every pair, -t the "
                              "ones named");
  }
  std::vector<std::string> problems = registration_problems();
  const std::vector<PairInfo> catalog = build_pair_catalog(registered_variants(), &problems);
  std::vector<PairAudit> audits;
  std::vector<std::string> notes;
  const std::vector<PairInfo> selected = select_pairs(catalog, audit_targets_, &notes);
  for (const std::string& note : notes) {
    std::cerr << "note: " << note << "\n";
  }
  for (const PairInfo& pair : selected) {
    audits.push_back(audit_pair(pair, catalog));
  }
  if (audit_targets_.empty()) {
    // Every pair was asked for, so a variant that did not pair up is a gap in the suite.
    for (const std::string& problem : problems) {
      audits.push_back(audit_registration_problem(problem));
    }
  }
  if (audit_json_) {
    std::cout << audit_to_json(audits).dump(2) << "\n";
  } else {
    std::cout << render_audit_text(audits);
  }
  const bool complete = std::all_of(audits.begin(), audits.end(),
                                    [](const PairAudit& audit) { return audit.complete(); });
  return complete ? kExitOk : kExitPairFailed;
}

int IntegrityCommands::quarantine_report() {
  const fs::path file = quarantine_file_of(quarantine_run_, quarantine_artifacts_dir_);
  const QuarantineFile quarantine = load_quarantine_file(file);
  if (quarantine_json_) {
    std::cout << quarantine_to_json(quarantine).dump(2) << "\n";
  } else {
    std::cout << render_quarantine_text(quarantine);
  }
  return kExitOk;
}

}  // namespace aisp
