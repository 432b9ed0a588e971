#include "worker/worker_request.hpp"

#include <nlohmann/json.hpp>

#include <utility>

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
  if (request.rank_count > 1) {
    for (const auto& [flag, value] :
         {std::pair{worker_flags::kRank, request.rank},
          std::pair{worker_flags::kRankCount, request.rank_count},
          std::pair{worker_flags::kReplyFd, kWorkerReplyFd}}) {
      argv.emplace_back(flag);
      argv.push_back(std::to_string(value));
    }
  }
  return argv;
}

}  // namespace aisp
