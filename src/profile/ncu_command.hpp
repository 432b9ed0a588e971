// Nsight Compute on the command line: where `ncu` is, which metrics each --profile set collects,
// and the exact command lines of the profiling pass and of reading its report back. Every ncu
// flag aisp uses is written here and nowhere else; results record the command as run.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile_set.hpp"

namespace aisp {

struct NcuLocation {
  std::string path;    // absolute or as found; empty when there is none
  std::string reason;  // why there is none: what was looked at
  bool found() const { return !path.empty(); }
};

// AISP_NCU when it is set (it must name an executable file; no fallback, so a test or a user can
// pin or disable the tool), else `ncu` in PATH, else /usr/local/cuda/bin/ncu.
// `override_path` and `path_env` are the values of AISP_NCU and PATH (null when unset).
NcuLocation locate_ncu(const char* override_path, const char* path_env);
// locate_ncu of this process's environment.
NcuLocation locate_ncu();

// The metric whose sum over a run's kernels is the run's device time.
inline constexpr std::string_view kNcuDurationMetric = "gpu__time_duration.sum";

struct NcuMetricSet {
  std::vector<std::string> metrics;          // collected with --metrics and stored, in this order
  std::vector<std::string> stored_prefixes;  // columns also stored when ncu reports them
  std::vector<std::string> sections;         // --section identifiers (kept in the .ncu-rep)
};

// minimal: duration, SM, memory and DRAM throughput (% of peak), achieved occupancy, registers,
// grid and block size. deep: those plus cache hit rates, DRAM bytes, instructions, shared-memory
// bank conflicts, eligible warps, the sections of a full analysis, and the warp-stall reasons and
// theoretical occupancy those sections report. docs/profiling.md lists them. `set` must not be
// ProfileSet::none.
const NcuMetricSet& ncu_metric_set(ProfileSet set);

struct NcuProfileCommand {
  std::string ncu;  // the executable
  ProfileSet set = ProfileSet::minimal;
  std::string nvtx_range;                // profile only kernels inside this push/pop range
  int launch_limit = 500;                // stop profiling after this many kernels
  std::filesystem::path report;          // the report to write, named *.ncu-rep
  std::vector<std::string> application;  // the command ncu runs: the worker's argv
};

// ncu --clock-control none --cache-control all --replay-mode kernel --target-processes all
//     --nvtx --nvtx-include "<range>/" --launch-count N --metrics ... [--section ...]...
//     --export <report> --force-overwrite <application...>
// Clocks are never locked (--clock-control none): the profile sees the card as the timed samples
// did. Caches are flushed before every replayed kernel, as the harness flushes L2 per sample.
std::vector<std::string> ncu_profile_argv(const NcuProfileCommand& command);

// ncu --import <report> --csv --page raw --print-units base: one CSV row per profiled kernel,
// every value in its base unit (ns, byte, %).
std::vector<std::string> ncu_import_argv(const std::string& ncu,
                                         const std::filesystem::path& report);

}  // namespace aisp
