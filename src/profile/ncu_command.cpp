#include "profile/ncu_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace aisp {
namespace {

bool is_executable_file(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
}

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string joined;
  for (const std::string& word : words) {
    if (!joined.empty()) {
      joined += separator;
    }
    joined += word;
  }
  return joined;
}

constexpr const char* kCudaNcu = "/usr/local/cuda/bin/ncu";

}  // namespace

NcuLocation locate_ncu(const char* override_path, const char* path_env) {
  if (override_path != nullptr) {
    if (is_executable_file(override_path)) {
      return {override_path, ""};
    }
    return {"", std::string("AISP_NCU=") + override_path +
                    " is not an executable file; point it at Nsight Compute's ncu, or unset it "
                    "to look in PATH and " +
                    kCudaNcu};
  }
  const std::string path_list = path_env != nullptr ? path_env : "";
  std::size_t start = 0;
  while (start <= path_list.size()) {
    const std::size_t end = std::min(path_list.find(':', start), path_list.size());
    const std::string directory = path_list.substr(start, end - start);
    if (!directory.empty()) {
      const std::filesystem::path candidate = std::filesystem::path(directory) / "ncu";
      if (is_executable_file(candidate)) {
        return {candidate.string(), ""};
      }
    }
    start = end + 1;
  }
  if (is_executable_file(kCudaNcu)) {
    return {kCudaNcu, ""};
  }
  return {"", std::string("Nsight Compute (ncu) not found in PATH nor at ") + kCudaNcu +
                  "; install it with the CUDA toolkit, or set AISP_NCU to its path"};
}

NcuLocation locate_ncu() { return locate_ncu(std::getenv("AISP_NCU"), std::getenv("PATH")); }

const NcuMetricSet& ncu_metric_set(ProfileSet set) {
  static const NcuMetricSet minimal{
      {
          std::string(kNcuDurationMetric),
          "sm__throughput.avg.pct_of_peak_sustained_elapsed",
          "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
          "dram__throughput.avg.pct_of_peak_sustained_elapsed",
          "sm__warps_active.avg.pct_of_peak_sustained_active",
          "launch__registers_per_thread",
          "launch__grid_size",
          "launch__block_size",
      },
      {},
      {},
  };
  static const NcuMetricSet deep = [] {
    NcuMetricSet d = minimal;
    for (const char* metric : {
             "dram__bytes_read.sum",
             "dram__bytes_write.sum",
             "lts__t_sector_hit_rate.pct",
             "l1tex__t_sector_hit_rate.pct",
             "lts__throughput.avg.pct_of_peak_sustained_elapsed",
             "l1tex__throughput.avg.pct_of_peak_sustained_active",
             "smsp__inst_executed.sum",
             "smsp__warps_eligible.avg.per_cycle_active",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
         }) {
      d.metrics.emplace_back(metric);
    }
    // Named by the sections, and differently across ncu versions: stored when present rather
    // than requested by a name one version may not know.
    d.stored_prefixes = {
        "sm__maximum_warps_per_active_cycle_pct", "smsp__average_warps_issue_stalled_",
        "smsp__average_warp_latency_issue_stalled_", "smsp__pcsamp_warps_issue_stalled_"};
    d.sections = {"SpeedOfLight", "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis", "Occupancy",
                  "LaunchStats",  "SchedulerStats",         "WarpStateStats"};
    return d;
  }();
  return set == ProfileSet::deep ? deep : minimal;
}

std::vector<std::string> ncu_profile_argv(const NcuProfileCommand& command) {
  const NcuMetricSet& set = ncu_metric_set(command.set);
  // One flag and its value per line.
  // clang-format off
  std::vector<std::string> argv = {
      command.ncu,
      "--clock-control", "none",
      "--cache-control", "all",
      "--replay-mode", "kernel",
      "--target-processes", "all",
      "--nvtx",
      "--nvtx-include", command.nvtx_range + "/",
      "--launch-count", std::to_string(command.launch_limit),
      "--metrics", join(set.metrics, ","),
  };
  // clang-format on

  for (const std::string& section : set.sections) {
    argv.push_back("--section");
    argv.push_back(section);
  }
  argv.push_back("--export");
  argv.push_back(command.report.string());
  argv.push_back("--force-overwrite");
  argv.insert(argv.end(), command.application.begin(), command.application.end());
  return argv;
}

std::vector<std::string> ncu_import_argv(const std::string& ncu,
                                         const std::filesystem::path& report) {
  return {ncu, "--import", report.string(), "--csv", "--page", "raw", "--print-units", "base"};
}

}  // namespace aisp
