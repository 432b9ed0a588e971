#include "run/run_directory.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <random>
#include <stdexcept>
#include <system_error>

#include "report/csv_export.hpp"
#include "report/markdown_summary.hpp"
#include "results/artifacts_layout.hpp"
#include "results/results_json.hpp"

namespace aisp {
namespace {

std::string format_utc(const char* pattern) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof(buffer), pattern, &tm);
  return buffer;
}

}  // namespace

std::string utc_now_iso8601() { return format_utc("%Y-%m-%dT%H:%M:%SZ"); }

std::string make_run_id() {
  std::random_device device;
  return fmt::format("{}-{:04x}", format_utc("%Y%m%d-%H%M%S"), device() & 0xFFFF);
}

RunDirectory::RunDirectory(const std::filesystem::path& artifacts_dir, const std::string& run_id)
    : path_(std::filesystem::absolute(artifacts::run_dir(artifacts_dir, run_id))) {
  std::error_code error;
  std::filesystem::create_directories(path_ / artifacts::kLogsDir, error);
  if (error)
    throw FileWriteError(fmt::format("cannot create the run directory {}: {}; choose another "
                                     "place with --artifacts-dir, or make it writable",
                                     path_.string(), error.message()));
  jsonl_.open(path_ / "results.jsonl", std::ios::app);
  if (!jsonl_)
    throw FileWriteError(fmt::format("cannot open {}: {}", (path_ / "results.jsonl").string(),
                                     std::generic_category().message(errno)));
}

std::string RunDirectory::log_name(const std::string& target) const {
  return artifacts::log_name(target);
}

std::filesystem::path RunDirectory::log_path(const std::string& target) const {
  return path_ / log_name(target);
}

void RunDirectory::write_manifest(const nlohmann::json& manifest) {
  manifest_ = manifest;
  write_json_atomically(path_ / "manifest.json", manifest);
}

void RunDirectory::append_result(const PairResult& result) {
  errno = 0;
  jsonl_ << to_json_line(result) << '\n';
  jsonl_.flush();
  if (!jsonl_)
    throw FileWriteError(fmt::format("cannot write {}: {}; check that {} is writable and has free "
                                     "space",
                                     (path_ / "results.jsonl").string(),
                                     errno != 0 ? std::generic_category().message(errno)
                                                : std::string("write failed"),
                                     path_.string()));
}

void RunDirectory::write_quarantine(const QuarantineFile& quarantine) {
  write_json_atomically(path_ / "quarantine.json", quarantine_to_json(quarantine));
}

void RunDirectory::write_snapshot(const RunResults& results) {
  write_json_atomically(path_ / "results.json", to_json(results));
  write_file_atomically(path_ / "summary.md", render_markdown_summary(results, manifest_));
  write_file_atomically(path_ / "results.csv", render_csv(results));
}

}  // namespace aisp
