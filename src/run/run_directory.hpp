// artifacts/runs/<run-id>/: the manifest, the results as they arrive (results.jsonl), and after
// every pair a complete results.json, summary.md and results.csv, so an interrupted run still
// leaves valid files. quarantine.json from the start, rewritten as each quarantined pair finishes.
// Per-pair worker logs under logs/.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"
#include "policy/quarantine.hpp"

namespace aisp {

class RunDirectory {
 public:
  // Creates <artifacts_dir>/runs/<run_id>/ and logs/. Every method throws FileWriteError
  // (results/results_json.hpp) naming the file when it cannot be written.
  RunDirectory(const std::filesystem::path& artifacts_dir, const std::string& run_id);

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path log_path(const std::string& target) const;  // absolute
  std::string log_name(const std::string& target) const;            // relative to path()

  void write_manifest(const nlohmann::json& manifest);
  void append_result(const PairResult& result);
  void write_snapshot(const RunResults& results);
  // quarantine.json, replaced atomically.
  void write_quarantine(const QuarantineFile& quarantine);

 private:
  std::filesystem::path path_;
  nlohmann::json manifest_;
  std::ofstream jsonl_;
};

// "20261121-233012-4f2a": UTC time plus a short random tag, sortable and unique enough.
std::string make_run_id();
std::string utc_now_iso8601();

}  // namespace aisp
