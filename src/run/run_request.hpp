// What `bench run` and `bench verify` ask the orchestrator for: the targets, the measurement
// settings, where the run directory goes, how the run compares with and records expectations,
// and the optional profiling pass. The CLI assembles it from the flags; run_suite carries it out.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement_settings.hpp"
#include "profile/profile_set.hpp"
#include "results/artifacts_layout.hpp"

namespace aisp {

// How `bench run` prints the run's results on stdout: the text summary, or the JSON of
// results.json (the progress lines then go to stderr).
enum class OutputFormat { text, json };

// A `bench run` or `bench verify` request, assembled by the CLI.
struct RunRequest {
  std::vector<std::string> targets;  // empty: every discovered pair
  MeasurementSettings measurement;
  std::filesystem::path artifacts_dir{artifacts::kDefaultDir};  // <DIR>/runs/<run-id>/
  OutputFormat format = OutputFormat::text;
  bool verify_only = false;          // `bench verify`: checks, no timing
  bool update_expectations = false;  // write expectations/<hardware key>.json from verified pairs
  // Expectations (docs/reports.md): with update_expectations, also record into files whose other
  // entries come from another GPU or commit / from a source tree with uncommitted changes.
  bool allow_mixed_provenance = false;
  bool allow_dirty = false;
  bool fail_on_regression = false;              // exit 1 when a pair regressed against them
  std::optional<double> expectation_threshold;  // unset: kDefaultExpectationThreshold
  std::filesystem::path chapters_dir;  // DIR/<chapter folder>/expectations/; empty: the pair's own
  ProfileSet profile = ProfileSet::none;  // --profile: an Nsight Compute pass after each pair
  std::string command_line;
};

}  // namespace aisp
