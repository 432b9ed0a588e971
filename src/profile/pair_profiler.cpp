#include "profile/pair_profiler.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>
#include <tuple>

#include <nlohmann/json.hpp>

#include "measure/nvtx_ranges.hpp"
#include "profile/ncu_csv.hpp"
#include "results/artifacts_layout.hpp"
#include "system/shell_words.hpp"
#include "worker/worker_process.hpp"
#include "worker/worker_request.hpp"

namespace aisp {
namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

VariantProfile failed(VariantProfile profile, std::string reason) {
  profile.status = ProfileStatus::failed;
  profile.reason = std::move(reason);
  return profile;
}

// What a profile with no kernel means: the variant launched none in its timed samples.
constexpr std::string_view kNoKernels =
    "no kernel ran inside the profiled samples (copies, memsets and host work are not kernels; "
    "Nsight Compute profiles kernels only)";

}  // namespace

MeasurementSettings profile_pass_settings(const MeasurementSettings& measurement) {
  MeasurementSettings settings = measurement;
  settings.warmup_runs = kProfileWarmupRuns;
  settings.fixed_samples = kProfileSamples;
  settings.graph_below_us = 0;  // one call per sample: the profile is per run
  return settings;
}

PairProfiler::PairProfiler(ProfileSet set, std::string self_executable,
                           const MeasurementSettings& measurement)
    : set_(set), self_(std::move(self_executable)), timeout_s_(measurement.pair_timeout_s),
      worker_settings_(profile_pass_settings(measurement)) {
  if (enabled()) {
    ncu_ = locate_ncu();
  }
}

std::string PairProfiler::describe() const {
  if (!enabled()) {
    return "profile: none";
  }
  if (!ncu_.found()) {
    return fmt::format("profile ({}): every pair's profile will be skipped: {}",
                       profile_set_name(set_), ncu_.reason);
  }
  return fmt::format("profile: Nsight Compute {}, set {}, after each pair's timed measurement "
                     "({} warm-up call, {} profiled samples per variant; clocks not locked)",
                     ncu_.path, profile_set_name(set_), kProfileWarmupRuns, kProfileSamples);
}

PairProfile PairProfiler::profile(const PairInfo& pair, const PairResult& measured,
                                  const std::filesystem::path& run_dir,
                                  const std::atomic<bool>& interrupt,
                                  const std::function<void(const std::string&)>& on_phase) const {
  PairProfile profile;
  profile.set = std::string(profile_set_name(set_));
  profile.warmup_runs = kProfileWarmupRuns;
  profile.samples = kProfileSamples;
  const auto skipped = [&profile](std::string reason) {
    profile.status = ProfileStatus::skipped;
    profile.reason = std::move(reason);
    return profile;
  };
  if (!ncu_.found()) {
    return skipped(ncu_.reason);
  }
  if (!measured.baseline || !measured.optimized) {
    return skipped(fmt::format("not profiled: the pair was not timed (status {})",
                               pair_status_name(measured.status)));
  }
  if (measured.baseline->method == TimingMethod::host_clock) {
    return skipped("CPU pair: Nsight Compute profiles GPU kernels, and this pair runs none");
  }

  for (const auto& [role, stem, slot] :
       {std::tuple{"baseline", pair.baseline->stem, &profile.baseline},
        std::tuple{"optimized", pair.optimized->stem, &profile.optimized}}) {
    if (interrupt.load()) {
      VariantProfile interrupted;
      interrupted.variant = stem;
      *slot = failed(std::move(interrupted), "interrupted before it was profiled");
      continue;
    }
    *slot = profile_variant(pair, role, stem, run_dir, interrupt, on_phase);
  }

  // The pair's status: failed when a variant's profile failed, skipped when both were skipped,
  // else collected; the reason lists the variants that were not collected.
  std::string failures, skips;
  for (const auto& [role, variant] :
       {std::pair{"baseline", &*profile.baseline}, std::pair{"optimized", &*profile.optimized}}) {
    if (variant->status == ProfileStatus::collected) {
      continue;
    }
    std::string& list = variant->status == ProfileStatus::failed ? failures : skips;
    list += fmt::format("{}{}: {}", list.empty() ? "" : "; ", role, variant->reason);
  }
  if (!failures.empty()) {
    profile.status = ProfileStatus::failed;
    profile.reason = failures + (skips.empty() ? "" : "; " + skips);
  } else if (profile.baseline->status == ProfileStatus::skipped &&
             profile.optimized->status == ProfileStatus::skipped) {
    profile.status = ProfileStatus::skipped;
    profile.reason = skips;
  } else {
    profile.status = ProfileStatus::collected;
    profile.reason = skips;
  }
  return profile;
}

VariantProfile
PairProfiler::profile_variant(const PairInfo& pair, const std::string& role,
                              const std::string& stem, const std::filesystem::path& run_dir,
                              const std::atomic<bool>& interrupt,
                              const std::function<void(const std::string&)>& on_phase) const {
  VariantProfile profile;
  profile.variant = stem;
  // Files beside the pair's log: profiles/<pair file name>.<role>.{ncu-rep,csv} and
  // logs/<pair file name>.profile-<role>.log (ncu's output and the profiled worker's).
  const std::string file_stem = artifacts::target_file_name(pair.target);
  const std::string base_name = file_stem + "." + role;
  const std::filesystem::path profiles = run_dir / artifacts::kProfilesDir;
  const std::filesystem::path report = profiles / (base_name + ".ncu-rep");
  const std::filesystem::path csv = profiles / (base_name + ".csv");
  const std::string log_name =
      std::string(artifacts::kLogsDir) + "/" + file_stem + ".profile-" + role + ".log";
  const std::filesystem::path log = run_dir / log_name;
  std::error_code error;
  std::filesystem::create_directories(profiles, error);
  // An ncu that appends its extension to any name would write <report>.ncu-rep: found either way.
  const std::filesystem::path doubled = report.string() + ".ncu-rep";
  std::filesystem::remove(report, error);
  std::filesystem::remove(doubled, error);

  NcuProfileCommand command;
  command.ncu = ncu_.path;
  command.set = set_;
  command.nvtx_range = nvtx_range_name(kNvtxSample, nvtx_label(pair.target, stem));
  command.launch_limit = kProfileLaunchLimit;
  command.report = report;
  WorkerRequest request;
  request.target = pair.target;
  request.settings = worker_settings_;
  request.profile_variant = role;
  command.application = worker_argv(self_, request);
  WorkerLaunch launch;
  launch.argv = ncu_profile_argv(command);
  launch.log_file = log;
  launch.timeout = std::chrono::duration<double>(timeout_s_);
  profile.command = shell_join(launch.argv);

  const auto show = [&](const std::string& phase) {
    if (on_phase) {
      on_phase(fmt::format("ncu {}: {}", role, phase));
    }
  };
  show("start");
  WorkerOutcome outcome;
  try {
    outcome = run_worker_process(launch, interrupt, show);
  } catch (const std::exception& e) {
    return failed(std::move(profile), fmt::format("could not start ncu: {}", e.what()));
  }
  const std::string output = read_text(log);
  const std::string errors = ncu_error_summary(output);
  const std::string see_log = fmt::format(" (log: {})", log_name);
  if (outcome.interrupted) {
    return failed(std::move(profile), "interrupted");
  }
  if (outcome.timed_out) {
    return failed(std::move(profile),
                  fmt::format("the Nsight Compute pass did not finish within --timeout {:g} s; "
                              "raise --timeout{}",
                              timeout_s_, see_log));
  }
  // A clean exit without a result line: the worker's protocol descriptor did not reach it through
  // ncu. The report is then all there is; the samples are the ones profile_pass_settings asks for.
  const bool result_lost = !outcome.has_result && outcome.exit_code == 0 && outcome.signal == 0;
  if (!outcome.has_result && !result_lost) {
    return failed(std::move(profile),
                  errors.empty()
                      ? fmt::format("the worker under ncu ended without a result (exit code {}, "
                                    "signal {}, phase '{}'){}",
                                    outcome.exit_code, outcome.signal, outcome.last_phase, see_log)
                      : errors + see_log);
  }
  const PairResult& worker = outcome.result;
  if (result_lost) {
    profile.runs = kProfileSamples;
  } else if (worker.status == PairStatus::skipped) {
    profile.status = ProfileStatus::skipped;
    profile.reason = worker.reason;
    return profile;
  } else if (worker.status != PairStatus::passed) {
    return failed(std::move(profile),
                  fmt::format("the worker under ncu failed: {}{}{}", worker.reason,
                              errors.empty() ? "" : "; ncu: " + errors, see_log));
  }
  const std::optional<VariantMeasurement>& samples =
      role == "baseline" ? worker.baseline : worker.optimized;
  if (samples) {
    profile.runs = static_cast<int>(samples->stats.count) * samples->runs_per_sample;
  }

  const bool found_doubled =
      !std::filesystem::exists(report, error) && std::filesystem::exists(doubled, error);
  const std::filesystem::path written = found_doubled ? doubled : report;
  if (!std::filesystem::exists(written, error)) {
    if (!errors.empty()) {
      return failed(std::move(profile), errors + see_log);
    }
    if (outcome.exit_code != 0 && !ncu_profiled_no_kernels(output)) {
      return failed(std::move(profile), fmt::format("ncu exited with code {} and wrote no report{}",
                                                    outcome.exit_code, see_log));
    }
    profile.status = ProfileStatus::collected;
    profile.reason = std::string(kNoKernels);
    profile.duration_ms_per_run = 0;
    return profile;
  }
  profile.report = std::string(artifacts::kProfilesDir) + "/" + written.filename().string();

  // Read the report back as CSV, in the C locale so numbers use '.' and ','.
  WorkerLaunch import;
  import.argv = ncu_import_argv(ncu_.path, written);
  import.log_file = csv;
  import.timeout = std::chrono::duration<double>(timeout_s_);
  import.environment = {{ "LC_ALL", "C" }};
  show("reading the report");
  WorkerOutcome imported;
  try {
    imported = run_worker_process(import, interrupt, nullptr);
  } catch (const std::exception& e) {
    return failed(std::move(profile), fmt::format("could not start `ncu --import`: {}", e.what()));
  }
  const std::string csv_text = read_text(csv);
  const std::string csv_name = std::string(artifacts::kProfilesDir) + "/" + base_name + ".csv";
  if (imported.interrupted) {
    return failed(std::move(profile), "interrupted");
  }
  if (imported.timed_out || imported.exit_code != 0) {
    const std::string import_errors = ncu_error_summary(csv_text);
    return failed(std::move(profile),
                  fmt::format("`{}` {}{} (output: {})", shell_join(import.argv),
                              imported.timed_out
                                  ? "timed out"
                                  : fmt::format("exited with code {}", imported.exit_code),
                              import_errors.empty() ? "" : ": " + import_errors, csv_name));
  }
  const std::optional<NcuRawTable> table = parse_ncu_raw_csv(csv_text);
  if ((!table || table->rows.empty()) && !errors.empty()) {
    return failed(std::move(profile), errors + see_log);  // e.g. ERR_NVGPUCTRPERM on every kernel
  }
  if (!table) {
    return failed(std::move(profile),
                  fmt::format("`ncu --import` printed no CSV table (output: {})", csv_name));
  }
  const NcuKernelSummary summary = summarize_ncu_kernels(*table, ncu_metric_set(set_));
  profile.status = ProfileStatus::collected;
  profile.kernels = summary.kernels;
  profile.launches = summary.launches;
  profile.duration_ms_per_run = std::numeric_limits<double>::quiet_NaN();
  if (summary.launches == 0) {
    profile.reason = std::string(kNoKernels);
    profile.duration_ms_per_run = 0;
  } else if (summary.launches >= kProfileLaunchLimit) {
    profile.reason = fmt::format("profiling stopped at the launch limit ({} kernels): the "
                                 "medians cover those launches; no per-run total",
                                 kProfileLaunchLimit);
  } else if (summary.duration_complete && profile.runs > 0) {
    profile.duration_ms_per_run = summary.duration_ns / 1e6 / profile.runs;
  }
  if (result_lost) {
    profile.reason += std::string(profile.reason.empty() ? "" : "; ") +
                      "the profiled worker's result did not come back through ncu; runs taken as "
                      "the samples asked for";
  }
  return profile;
}

}  // namespace aisp
