// What the orchestrator asks one worker process for, and the command line that carries it: the
// hidden `<binary> __worker ...` subcommand. worker_argv() is the one place that command line is
// written; the CLI declares the subcommand's flags with the names below.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/measurement_settings.hpp"
#include "results/artifacts_layout.hpp"

namespace aisp {

struct WorkerRequest {
  std::string target;  // "ch07:transpose_padded"
  MeasurementSettings settings;
  bool verify_only = false;  // `bench verify`: the checks, no timing
  // Where the roofline reads this machine's measured ceilings: the run's <artifacts dir>/peaks.
  std::filesystem::path peaks_dir = artifacts::default_peaks_dir();
  // "baseline" or "optimized": the Nsight Compute pass of that variant alone
  // (profile/profile_worker.hpp); empty: measure the pair.
  std::string profile_variant;
  // Under `mpirun` (docs/multi-gpu.md, "Several hosts"): this orchestrator's rank and the job's
  // size. rank_count 0: a run in one process. The worker then reaches the other ranks through its
  // orchestrator: exchange lines on the protocol descriptor, replies on kWorkerReplyFd.
  int rank = 0;
  int rank_count = 0;
};

inline constexpr std::string_view kWorkerCommand = "__worker";
// The descriptor the worker writes its protocol lines to (worker/worker_protocol.hpp).
inline constexpr int kWorkerProtocolFd = 3;
// The descriptor the worker reads its orchestrator's replies to exchange lines from (under
// mpirun only).
inline constexpr int kWorkerReplyFd = 4;
// Under mpirun: a memory file both the worker and its orchestrator map, for host collectives
// (the floats of a host-staged all-reduce), so they do not travel through the pipes.
inline constexpr int kWorkerSharedMemoryFd = 5;

namespace worker_flags {
inline constexpr const char* kTarget = "--target";
inline constexpr const char* kSettingsJson = "--settings-json";
inline constexpr const char* kOutFd = "--out-fd";
inline constexpr const char* kVerifyOnly = "--verify-only";
inline constexpr const char* kPeaksDir = "--peaks-dir";
inline constexpr const char* kProfileVariant = "--profile-variant";
inline constexpr const char* kRank = "--rank";
inline constexpr const char* kRankCount = "--rank-count";
inline constexpr const char* kReplyFd = "--reply-fd";
}  // namespace worker_flags

// `executable __worker --target T --settings-json {...} --out-fd 3`, then --verify-only,
// --peaks-dir DIR and --profile-variant ROLE when the request has them. A peaks directory equal to
// the default is not passed, and under mpirun --rank R --rank-count N --reply-fd 4 (the worker's default is the same), so the profiling pass's command
// line stays as short as it can be.
std::vector<std::string> worker_argv(const std::string& executable, const WorkerRequest& request);

}  // namespace aisp
