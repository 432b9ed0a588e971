// What a run produces: the one data type every printer (JSON, JSON lines, markdown, CSV, the
// terminal) renders without knowing who made it. docs/results-schema.md documents the JSON form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aisp {

inline constexpr int kResultsSchemaVersion = 1;

// Summary of one variant's samples, in milliseconds.
struct SampleStats {
  std::size_t count = 0;
  double median = 0, mean = 0, trimmed_mean = 0;  // trimmed: 10% cut from each end
  double min = 0, max = 0, stddev = 0;
  double p05 = 0, p25 = 0, p75 = 0, p95 = 0, p99 = 0;
  double relative_noise = 0;  // stddev / mean
  double robust_noise = 0;    // 1.4826 * MAD / median
};

// How a variant was timed.
enum class TimingMethod { cuda_events, graph_replay, host_clock };
std::string_view timing_method_name(TimingMethod method);

struct VariantMeasurement {
  std::string variant;  // file stem: "optimized_transpose_padded"
  TimingMethod method = TimingMethod::cuda_events;
  int runs_per_sample = 1;       // > 1 for graph replay: sample time is per run
  int rotating_sets = 1;         // input sets rotated through in graph replay
  std::vector<double> event_ms;  // device time per run, one entry per sample (empty for host)
  std::vector<double> host_ms;   // host wall time per run, one entry per sample
  SampleStats stats;             // of event_ms for GPU variants, host_ms for CPU-only ones
  SampleStats host_stats;
  bool converged = false;
  std::string stop_reason;  // "noise 0.4% <= 0.5%", "timeout after 15 s at noise 2.1%", ...
};

// optimized vs baseline: median(baseline) / median(optimized), with a bootstrap interval.
struct Speedup {
  double value = 0;
  double ci_low = 0, ci_high = 0;
  double confidence = 0.95;
  int resamples = 0;
  // "faster" when ci_low > 1, "slower" when ci_high < 1, else "no significant difference".
  std::string verdict;
};

// The optimized variant against the measured ceiling its workload names.
struct Roofline {
  double achieved_gbps = 0;    // bytes / time
  double achieved_tflops = 0;  // flops / time
  double floor_ms = 0;         // the fastest the ceilings allow
  double fraction = 0;         // floor_ms / measured median
  std::string bound;           // "memory", "compute", "launch"
  std::string ceiling;         // ceiling name
  double ceiling_value = 0;    // GB/s, TFLOP/s or us per launch
  std::string ceiling_unit;
  std::string ceiling_source;  // where the ceiling figure comes from
};

struct CheckOutcome {
  std::string check;  // "signatures_equal", "outputs_written", "within_tolerance", ...
  bool passed = false;
  std::string detail;
};

struct Verification {
  bool passed = false;
  std::vector<CheckOutcome> checks;
};

// GPU state read through NVML around a pair's measurement; absent fields stay unset.
struct GpuState {
  std::optional<unsigned> sm_clock_mhz, memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<unsigned> temperature_c;
  std::vector<std::string> throttle_reasons;
};

enum class PairStatus { passed, failed, skipped, timed_out, crashed, interrupted };
std::string_view pair_status_name(PairStatus status);

struct PairResult {
  std::string target;  // "ch07:transpose_padded"
  std::string chapter;  // "ch07"
  std::string pair;     // "transpose"
  std::string baseline_variant, optimized_variant;
  PairStatus status = PairStatus::failed;
  std::string reason;  // why failed / skipped; empty when passed
  std::vector<std::pair<std::string, std::string>> signature;
  double bytes = 0, flops = 0, launches = 0;
  std::vector<std::pair<std::string, double>> counters_per_run;
  std::optional<VariantMeasurement> baseline, optimized;
  std::optional<Speedup> speedup;
  std::optional<Roofline> roofline;           // of the optimized variant
  std::optional<Roofline> baseline_roofline;
  Verification verification;
  GpuState gpu_before, gpu_after;
  double wall_seconds = 0;
  std::string log_file;  // relative to the run directory
};

struct RunResults {
  int schema_version = kResultsSchemaVersion;
  std::string run_id;
  std::string started_at, finished_at;  // ISO 8601 UTC
  bool complete = false;                // false when interrupted
  std::vector<PairResult> pairs;
};

}  // namespace aisp
