// Where everything aisp writes lives, stated once:
//   <artifacts dir>/runs/<run-id>/                  a run directory (run/run_directory.hpp):
//       manifest.json results.json results.jsonl summary.md results.csv quarantine.json
//       logs/<target file name>.log                 each pair's worker output
//       profiles/<target file name>.<role>.ncu-rep  `--profile`'s reports (and .csv)
//   <artifacts dir>/peaks/<hardware key>.json       measured ceilings: `bench peak` writes them,
//                                                   every roofline reads them
// The artifacts dir is `artifacts` unless --artifacts-dir says otherwise.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace aisp::artifacts {

inline constexpr std::string_view kDefaultDir = "artifacts";
inline constexpr std::string_view kRunsDir = "runs";
inline constexpr std::string_view kPeaksDir = "peaks";
inline constexpr std::string_view kLogsDir = "logs";          // inside a run directory
inline constexpr std::string_view kProfilesDir = "profiles";  // inside a run directory

// <artifacts_dir>/runs
std::filesystem::path runs_dir(const std::filesystem::path& artifacts_dir);
// <artifacts_dir>/runs/<run_id>
std::filesystem::path run_dir(const std::filesystem::path& artifacts_dir,
                              const std::string& run_id);
// <artifacts_dir>/peaks
std::filesystem::path peaks_dir(const std::filesystem::path& artifacts_dir);
// artifacts/peaks: where `bench peak` stores and a run reads when no directory is given.
std::filesystem::path default_peaks_dir();

// The name a target's files carry inside a run directory: "ch07:transpose" -> "ch07_transpose".
std::string target_file_name(const std::string& target);
// logs/<target file name>.log, relative to the run directory.
std::string log_name(const std::string& target);

}  // namespace aisp::artifacts
