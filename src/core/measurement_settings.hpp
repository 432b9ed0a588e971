// Every knob of a run, defined once: its type, default, flag, range and help text. The CLI
// builds its options from run_setting_descriptors(), the worker receives and the manifest records
// the values through measurement_settings_to_json(), and docs/cli.md embeds the same table
// (run_settings_markdown_table(); a CLI test keeps the two equal). It lives in core/, below
// every layer that reads a setting (measure, verify, the worker, the orchestrator, the CLI), so
// none of them depends on another for it.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "aisp/result.hpp"

namespace aisp {

struct MeasurementSettings {
  int warmup_runs = 3;            // untimed calls of run() before sampling
  int fixed_samples = 0;          // > 0: exactly this many samples per variant, no adaptive stop
  int min_samples = 10;           // adaptive: never stop before this many samples per variant
  double min_time_s = 0.5;        // adaptive: summed sample time per variant before stopping
  double max_noise = 0.005;       // adaptive: stop once relative noise (stddev/mean) is below this
  double max_time_s = 20.0;       // adaptive: stop sampling a pair after this much wall time
  double graph_below_us = 20.0;   // automatic timing mode: graph-replay runs shorter than this
  double pair_timeout_s = 300.0;  // hard limit for one pair's worker (verify + warm-up + timing)
  int bootstrap_resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 20261121;
  VerifyPhase verify_phase = VerifyPhase::gate;  // how a failed check is enforced
  int gpus = 0;  // GPUs of a multi-GPU pair; 0: each pair its Requirements::min_gpus

  bool operator==(const MeasurementSettings& other) const = default;
};

// Where a setting lives in MeasurementSettings; the member's type is the setting's type. A
// VerifyPhase setting takes one of the phase names, not a number.
using RunSettingMember =
    std::variant<int MeasurementSettings::*, double MeasurementSettings::*,
                 std::uint64_t MeasurementSettings::*, VerifyPhase MeasurementSettings::*>;

// The values a setting accepts, low..high with each end open or closed. Integer settings also
// require a whole number; the seed accepts any unsigned 64-bit integer. Unused by a setting of
// names (the verification phase): its names are its range.
struct RunSettingRange {
  double low = -std::numeric_limits<double>::infinity();
  bool low_inclusive = true;
  double high = std::numeric_limits<double>::infinity();
  bool high_inclusive = true;

  bool contains(double value) const;
};

// One row of the settings table: what the CLI, the JSON and the docs show.
struct RunSettingDescriptor {
  const char* flag;     // "--min-time"
  const char* field;    // JSON key in the manifest: "min_time_s"
  const char* unit;     // "s", "samples", "fraction", ""
  const char* allowed;  // completes "must be ...": "a fraction in (0, 1), e.g. 0.005 for 0.5%"
  const char* help;
  RunSettingMember member;  // the value in MeasurementSettings, and so its type
  RunSettingRange range;    // what `allowed` says, for the checks
  bool applies_to_verify;   // also a flag of `bench verify` (seed, pair timeout)
};

const std::vector<RunSettingDescriptor>& run_setting_descriptors();

// Parses `text` as the setting's type and checks its range. On success stores the value in
// `settings` and returns nullopt; otherwise leaves `settings` alone and returns what is wrong:
// "--max-noise 5: must be a fraction in (0, 1), e.g. 0.005 for 0.5%".
std::optional<std::string> apply_run_setting(MeasurementSettings& settings,
                                             const RunSettingDescriptor& descriptor,
                                             const std::string& text);

// The setting's value in `settings` as the CLI, the docs and the messages print it ("0.005").
std::string run_setting_value_text(const MeasurementSettings& settings,
                                   const RunSettingDescriptor& descriptor);

// Every problem with `settings`, one sentence each naming the flag and what to do: values out of
// range and, unless `verify_only` (no timing, so the sampling limits do not apply), settings that
// contradict each other (a --timeout no longer than --max-time would kill an adaptive pair as a
// hang). Empty when the settings are usable.
std::vector<std::string> validate_measurement_settings(const MeasurementSettings& settings,
                                                       bool verify_only = false);

// {"warmup_runs": 3, ..., "seed": 20261121}: every setting under its descriptor's `field`.
nlohmann::json measurement_settings_to_json(const MeasurementSettings& settings);

// The inverse of measurement_settings_to_json. Keys it lacks keep their defaults; an unknown key,
// a value of the wrong type or out of its range throw std::invalid_argument saying which. Settings
// that contradict each other are the CLI's to refuse (validate_measurement_settings), not this.
MeasurementSettings measurement_settings_from_json(const nlohmann::json& json);

// The settings table as markdown (flag, unit, default, allowed values, commands, meaning), from
// the descriptors; docs/cli.md holds a copy between <!-- settings-table --> markers.
std::string run_settings_markdown_table();

}  // namespace aisp
