#include "results/artifacts_layout.hpp"

namespace aisp::artifacts {

std::filesystem::path runs_dir(const std::filesystem::path& artifacts_dir) {
  return artifacts_dir / kRunsDir;
}

std::filesystem::path run_dir(const std::filesystem::path& artifacts_dir,
                              const std::string& run_id) {
  return runs_dir(artifacts_dir) / run_id;
}

std::filesystem::path peaks_dir(const std::filesystem::path& artifacts_dir) {
  return artifacts_dir / kPeaksDir;
}

std::filesystem::path default_peaks_dir() { return peaks_dir(kDefaultDir); }

std::string target_file_name(const std::string& target) {
  std::string name = target;
  for (char& c : name) {
    if (c == ':' || c == '/') {
      c = '_';
    }
  }
  return name;
}

std::string log_name(const std::string& target) {
  return std::string(kLogsDir) + "/" + target_file_name(target) + ".log";
}

}  // namespace aisp::artifacts
