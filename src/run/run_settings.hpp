// Every knob of a run, defined once: its type, default, flag, range and help text. The CLI
// builds its options from kRunSettingDescriptors, the results and manifest record the values,
// and docs/measurement.md lists the same table.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace aisp {

enum class OutputFormat { text, json };

struct MeasurementSettings {
  int warmup_runs = 3;           // untimed calls of run() before sampling
  int fixed_samples = 0;         // > 0: exactly this many samples per variant, no adaptive stop
  int min_samples = 10;          // adaptive: never stop before this many samples per variant
  double min_time_s = 0.5;       // adaptive: summed sample time per variant before stopping
  double max_noise = 0.005;      // adaptive: stop once relative noise (stddev/mean) is below this
  double max_time_s = 20.0;      // adaptive: stop sampling a pair after this much wall time
  double graph_below_us = 20.0;  // automatic timing mode: graph-replay runs shorter than this
  double pair_timeout_s = 300.0; // hard limit for one pair's worker (verify + warm-up + timing)
  int bootstrap_resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 20261121;
};

// One row of the settings table: what the CLI, the JSON and the docs show.
struct RunSettingDescriptor {
  const char* flag;        // "--min-time"
  const char* field;       // JSON key in the manifest: "min_time_s"
  const char* unit;        // "s", "samples", "fraction", ""
  const char* allowed;     // human-readable range: "> 0", "0..1", "integer >= 1"
  const char* help;
};

const std::vector<RunSettingDescriptor>& run_setting_descriptors();

// Bench run request assembled by the CLI.
struct RunRequest {
  std::vector<std::string> targets;  // empty: every discovered pair
  MeasurementSettings measurement;
  std::filesystem::path artifacts_dir = "artifacts";
  OutputFormat format = OutputFormat::text;
  bool verify_only = false;          // `bench verify`: checks, no timing
  std::string command_line;
};

}  // namespace aisp
