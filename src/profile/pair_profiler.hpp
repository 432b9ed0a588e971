// The Nsight Compute pass of `bench run --profile ncu|deep` (docs/profiling.md). After a pair's
// timed measurement, which stays unprofiled, the orchestrator runs each variant once more in a
// worker under ncu: setup, kProfileWarmupRuns untimed calls, then kProfileSamples samples, with
// only the kernels inside those samples' NVTX ranges profiled. The metrics are attached to the
// pair's result; a profile that cannot be taken is recorded as skipped or failed with the reason
// and never changes the pair's status or the run's exit code.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "aisp/result.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "profile/ncu_command.hpp"
#include "profile/profile_set.hpp"

namespace aisp {

inline constexpr int kProfileWarmupRuns = 1;
// One profiled sample: every profiled kernel is replayed once per metric pass (device memory
// saved and restored around each), so each sample costs seconds. On the H200, 3 samples and a
// 500-launch cap made ch01:launch_graph alone take 5 minutes (ch07's pairs ~12 s each).
inline constexpr int kProfileSamples = 1;
// ncu stops profiling after this many kernels per variant (--launch-count), so a variant of a
// thousand launches per run does not take minutes of replays; 64 still covers a 40-GEMM loop.
inline constexpr int kProfileLaunchLimit = 64;

// The settings the profiled worker gets: the run's, with kProfileWarmupRuns warm-up calls,
// exactly kProfileSamples samples, and every sample one call (no graph replay of many calls).
MeasurementSettings profile_pass_settings(const MeasurementSettings& measurement);

class PairProfiler {
 public:
  // `self_executable` is this binary (the worker); `measurement` the run's settings (its
  // --timeout bounds each ncu invocation).
  PairProfiler(ProfileSet set, std::string self_executable, const MeasurementSettings& measurement);

  bool enabled() const { return set_ != ProfileSet::none; }
  // For the start of a run: "profile: Nsight Compute /usr/local/cuda/bin/ncu, set minimal, ..."
  // or why every pair's profile will be skipped.
  std::string describe() const;

  // The profile of `pair`, whose measured result is `measured`. Writes the reports under
  // <run_dir>/profiles/ and ncu's output under <run_dir>/logs/ (results/artifacts_layout.hpp).
  // `on_phase` gets progress ("ncu baseline: warmup"); `interrupt` stops the pass (the profile
  // is then recorded as failed).
  PairProfile profile(const PairInfo& pair, const PairResult& measured,
                      const std::filesystem::path& run_dir, const std::atomic<bool>& interrupt,
                      const std::function<void(const std::string&)>& on_phase) const;

 private:
  VariantProfile profile_variant(const PairInfo& pair, const std::string& role,
                                 const std::string& stem, const std::filesystem::path& run_dir,
                                 const std::atomic<bool>& interrupt,
                                 const std::function<void(const std::string&)>& on_phase) const;

  ProfileSet set_;
  std::string self_;
  double timeout_s_;
  MeasurementSettings worker_settings_;  // profile_pass_settings of the run's
  NcuLocation ncu_;
};

}  // namespace aisp
