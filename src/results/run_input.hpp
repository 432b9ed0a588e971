// A finished (or interrupted) run read back from disk, for the commands that work on runs after
// the fact: `bench report` and `bench compare-runs`. A run is named by its directory
// (artifacts/runs/<run-id>/) or by its results.json.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"

namespace aisp {

// The path given names no run: it does not exist, or is a directory without results.json or
// results.jsonl. what() says which path and what a run directory holds. A usage error (exit 2).
class RunNotFoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoadedRun {
  std::filesystem::path run_dir;       // the directory holding the results
  std::filesystem::path results_file;  // results.json, or results.jsonl when only that exists
  RunResults results;
  nlohmann::json manifest = nlohmann::json::object();  // manifest.json; empty when absent
  std::vector<std::string> warnings;  // what could not be read but did not stop the load
};

// Reads a run from `run_dir_or_results` (a run directory or a results.json / results.jsonl):
// results.json when present, else the results.jsonl stream (a run whose orchestrator was killed
// before it rewrote results.json; marked incomplete), and manifest.json beside it when present.
// Throws RunNotFoundError when there is nothing to read, ResultsFormatError (naming the file and
// the JSON path of the bad field) when the results are corrupt, std::runtime_error when a file
// cannot be read. A corrupt or unreadable manifest is a warning, not an error: the results
// alone make a report.
LoadedRun load_run(const std::filesystem::path& run_dir_or_results);

// The hardware key, GPU name and commit of a manifest, or "" for each that is absent.
std::string manifest_hardware_key(const nlohmann::json& manifest);
std::string manifest_gpu_name(const nlohmann::json& manifest);
std::string manifest_git_commit(const nlohmann::json& manifest);

}  // namespace aisp
