#include "results/run_input.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "results/json_fields.hpp"
#include "results/results_json.hpp"

namespace aisp {
namespace {

namespace fs = std::filesystem;

bool is_existing_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// A run id is the run directory's name; a results.jsonl has none of its own.
std::string run_id_from_directory(const fs::path& run_dir) {
  const fs::path name = run_dir.filename();
  return name.empty() ? run_dir.parent_path().filename().string() : name.string();
}

// manifest.json beside the results, or an empty object with a warning saying why not.
nlohmann::json read_manifest(const fs::path& run_dir, std::vector<std::string>& warnings) {
  const fs::path path = run_dir / "manifest.json";
  if (!is_existing_file(path)) {
    warnings.push_back(fmt::format(
        "{}: not found; the run's GPU, hardware key, commit and command line are unknown",
        path.string()));
    return nlohmann::json::object();
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    warnings.push_back(fmt::format("{}: cannot be read; going on without it", path.string()));
    return nlohmann::json::object();
  }
  try {
    nlohmann::json manifest = nlohmann::json::parse(text.str());
    if (manifest.is_object()) {
      return manifest;
    }
    warnings.push_back(fmt::format("{}: expected a JSON object, got {}; going on without it",
                                   path.string(), json_fields::describe_value(manifest)));
  } catch (const nlohmann::json::exception& error) {  // parse_error, or out_of_range for 1e400
    warnings.push_back(fmt::format("{}: not valid JSON ({}); going on without it", path.string(),
                                   json_fields::describe_parse_error(error)));
  }
  return nlohmann::json::object();
}

std::string manifest_string(const nlohmann::json& manifest, const char* key) {
  if (!manifest.is_object()) {
    return {};
  }
  const auto value = manifest.find(key);
  return value != manifest.end() && value->is_string() ? value->get<std::string>() : std::string();
}

}  // namespace

LoadedRun load_run(const fs::path& run_dir_or_results) {
  std::error_code error;
  const fs::file_status status = fs::status(run_dir_or_results, error);
  if (!fs::exists(status)) {
    throw RunNotFoundError(fmt::format(
        "{}: no such file or directory; give a run directory (artifacts/runs/<run-id>) or its "
        "results.json",
        run_dir_or_results.string()));
  }
  LoadedRun run;
  if (fs::is_directory(status)) {
    run.run_dir = run_dir_or_results;
    if (is_existing_file(run.run_dir / "results.json")) {
      run.results_file = run.run_dir / "results.json";
    } else if (is_existing_file(run.run_dir / "results.jsonl")) {
      run.results_file = run.run_dir / "results.jsonl";
    } else {
      throw RunNotFoundError(fmt::format(
          "{}: holds neither results.json nor results.jsonl, so it is not a run directory; "
          "runs are under <artifacts dir>/runs/<run-id>/",
          run_dir_or_results.string()));
    }
  } else {
    run.results_file = run_dir_or_results;
    run.run_dir = run_dir_or_results.parent_path();
    if (run.run_dir.empty()) {
      run.run_dir = ".";
    }
  }

  if (run.results_file.extension() == ".jsonl") {
    run.results.pairs = load_json_lines(run.results_file);
    run.results.run_id = run_id_from_directory(fs::absolute(run.run_dir).lexically_normal());
    run.results.complete = false;
    run.warnings.push_back(fmt::format(
        "{}: read from the results stream (results.json was not written, the orchestrator was "
        "probably killed); the run may be incomplete",
        run.results_file.string()));
  } else {
    run.results = load_run_results(run.results_file);
  }
  run.manifest = read_manifest(run.run_dir, run.warnings);
  return run;
}

std::string manifest_hardware_key(const nlohmann::json& manifest) {
  return manifest_string(manifest, "hardware_key");
}

std::string manifest_gpu_name(const nlohmann::json& manifest) {
  if (!manifest.is_object()) {
    return {};
  }
  const auto gpus = manifest.find("gpus");
  if (gpus == manifest.end() || !gpus->is_array() || gpus->empty() || !(*gpus)[0].is_object()) {
    return {};
  }
  return manifest_string((*gpus)[0], "name");
}

std::string manifest_git_commit(const nlohmann::json& manifest) {
  return manifest_string(manifest, "git_commit");
}

}  // namespace aisp
