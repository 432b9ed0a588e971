#include "worker/worker_request.hpp"

#include <nlohmann/json.hpp>

namespace aisp {

std::vector<std::string> worker_argv(const std::string& executable, const WorkerRequest& request) {
  std::vector<std::string> argv = {executable,
                                   std::string(kWorkerCommand),
                                   worker_flags::kTarget,
                                   request.target,
                                   worker_flags::kSettingsJson,
                                   measurement_settings_to_json(request.settings).dump(),
                                   worker_flags::kOutFd,
                                   std::to_string(kWorkerProtocolFd)};
  if (request.verify_only) {
    argv.emplace_back(worker_flags::kVerifyOnly);
  }
  if (!request.peaks_dir.empty() && request.peaks_dir != artifacts::default_peaks_dir()) {
    argv.emplace_back(worker_flags::kPeaksDir);
    argv.push_back(request.peaks_dir.string());
  }
  if (!request.profile_variant.empty()) {
    argv.emplace_back(worker_flags::kProfileVariant);
    argv.push_back(request.profile_variant);
  }
  return argv;
}

}  // namespace aisp
