// What a run produces: the one data type every printer (JSON, JSON lines, markdown, CSV, the
// terminal) renders without knowing who made it. docs/results-schema.md documents the JSON form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aisp {

// Version 2 added the status "quarantined" and the run's "verify_phase"; version 3 a pair's
// "library" (its fraction of the pair's library reference) and "precision" (each variant's error
// against the float64 reference). Versions 1 and 2 are still read (version 1 as the gate phase;
// neither has the version 3 fields). docs/results-schema.md lists the versions.
inline constexpr int kResultsSchemaVersion = 3;
inline constexpr int kOldestReadableResultsSchemaVersion = 1;

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

// A point the variant marked inside run() (ctx.mark): ms from the start of run(), per sample.
struct MarkMeasurement {
  std::string name;        // "first_token"
  std::vector<double> ms;  // one entry per sample, in the samples' order
  SampleStats stats;       // of ms
};

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
  std::vector<MarkMeasurement> marks;  // in the order run() reaches them; empty without marks
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
  double seconds = 0;  // wall time the verification runs and checks took (absent in old files)
};

// GPU state read through NVML around a pair's measurement; absent fields stay unset.
struct GpuState {
  std::optional<unsigned> sm_clock_mhz, memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<unsigned> temperature_c;
  std::vector<std::string> throttle_reasons;
};

// The pair against the committed expectation for the run's hardware key: set by `bench run` when
// the run's chapters hold an expectations file for that key, absent otherwise (and in files
// written before it existed). docs/reports.md states the rule.
struct ExpectationCheck {
  // "regression", "improvement", "as_expected", "no_expectation" or "not_compared".
  std::string verdict;
  std::string hardware_key;  // "h200": the file compared against
  double threshold = 0;      // practical threshold: 0.05 for 5%
  // The recorded entry; unset for no_expectation and not_compared.
  std::optional<double> expected_speedup, expected_ci_low, expected_ci_high;
  std::optional<double> expected_baseline_ms, expected_optimized_ms;
  // The recorded fraction of the library reference, when the entry holds one (it then takes part
  // in the verdict as the speedup does).
  std::optional<double> expected_library_fraction, expected_library_fraction_ci_low,
      expected_library_fraction_ci_high;
  std::string recorded;  // "NVIDIA H200, commit a3c7892, 2026-11-22, run 20261122-012846-bd2f"
  std::string detail;    // the numbers compared, in words
};

// Nsight Compute's view of a pair (`bench run --profile ncu|deep`, docs/profiling.md), taken in
// a separate pass after the timed measurement so the profiler never perturbs the timed samples.
enum class ProfileStatus { collected, skipped, failed };
std::string_view profile_status_name(ProfileStatus status);

// One metric of a profiled kernel: the median of its values over that kernel's profiled launches.
struct ProfileMetric {
  std::string name;  // Nsight Compute metric: "gpu__time_duration.sum"
  std::string unit;  // "ns" for times, "byte" for sizes, else as ncu prints it: "%", ...
  double median = 0;
};

// The launches of one kernel (by name) inside a variant's profiled samples.
struct ProfiledKernel {
  std::string name;                    // the function name ncu prints: "transpose_padded"
  int launches = 0;                    // profiled launches of it
  std::string grid_size, block_size;   // of its first launch: "(65536, 1, 1)"
  std::vector<ProfileMetric> metrics;  // in the set's order
};

struct VariantProfile {
  std::string variant;  // file stem
  ProfileStatus status = ProfileStatus::failed;
  std::string reason;   // why skipped or failed; a note when collected (e.g. the launch cap)
  std::string command;  // the ncu command line, shell-quoted
  std::string report;   // the .ncu-rep file, relative to the run directory; empty when none
  int runs = 0;         // calls of run() inside the profiled samples
  int launches = 0;     // kernel launches profiled
  double duration_ms_per_run = 0;  // summed gpu__time_duration / runs; NaN when not all profiled
  std::vector<ProfiledKernel> kernels;  // in order of first launch
};

struct PairProfile {
  std::string tool = "ncu";
  std::string set;  // "minimal" (--profile ncu) or "deep"
  ProfileStatus status = ProfileStatus::skipped;
  std::string reason;  // why skipped or failed
  int warmup_runs = 0;  // untimed calls before the profiled samples, per variant
  int samples = 0;      // profiled samples per variant
  std::optional<VariantProfile> baseline, optimized;
};

// How a target relates to its pair's library reference (Benchmark::library_reference(), declared
// by at most one variant of a pair: docs/contract.md, "Library reference").
enum class LibraryRole {
  reference,  // this target's optimized variant is the reference: its speedup as usual, no fraction
  timed,      // the reference was timed in this target's worker, interleaved with both variants
  baseline,   // the pair's baseline is the reference: the fraction is the speedup, same samples
};
std::string_view library_role_name(LibraryRole role);

// The optimized variant against the pair's library reference: the reference's median over the
// optimized variant's, from samples taken in one worker, interleaved.
struct LibraryComparison {
  std::string library;            // "cuBLASLt": what library_reference() returned
  std::string reference_variant;  // file stem: "optimized_gemm_bf16_cublaslt"
  LibraryRole role = LibraryRole::timed;
  // reference median / optimized median with its bootstrap interval; the verdict "faster" means
  // the optimized variant beats the library. Unset for the reference itself and when the
  // reference could not be timed here (`reason` says why).
  std::optional<Speedup> fraction;
  std::optional<VariantMeasurement> reference;  // role timed: the reference's samples
  std::string reason;                           // why there is no fraction; empty otherwise
};

// A variant's declaration that it computes in a lower-precision number format on purpose
// (Benchmark::lower_precision()), as the results record it.
struct PrecisionDeclaration {
  std::string format;           // "fp8_e4m3 A and B, per-tensor scales"
  double max_relative_rms = 0;  // the bound it is held to against the float64 reference
  std::string justification;
};

// One output's error against the float64 reference over the sampled elements.
struct OutputError {
  std::string output;       // the tensor's name
  std::size_t sampled = 0;  // elements compared
  double relative_rms = 0;  // ||actual - reference|| / ||reference|| (absolute RMS if ref is 0)
  double max_abs = 0;       // max |actual - reference|
  // max |actual - reference| / |reference| over the sampled elements whose |reference| is at
  // least a tenth of the reference's RMS (near zero a relative error says nothing); unset when no
  // element qualifies.
  std::optional<double> max_relative;
  std::size_t relative_elements = 0;  // elements max_relative is taken over
};

struct VariantPrecision {
  std::string variant;               // file stem
  std::vector<OutputError> outputs;  // floating-point outputs, in outputs() order
  std::optional<PrecisionDeclaration> lower_precision;  // set when the variant declares one
};

// Each variant's error against the baseline's float64 reference(), measured at verification
// (verification seed) on the same sampled elements. Set for every pair whose baseline gives a
// reference, and for a pair with a lower-precision variant (whose outputs are then empty when
// there is no reference to measure against).
struct PrecisionResult {
  VariantPrecision baseline, optimized;
};

// `quarantined`: a check failed under --verify-phase quarantine; the pair was timed where its
// outputs could be compared, but no report shows a speedup for it (docs/integrity.md).
enum class PairStatus { passed, failed, skipped, timed_out, crashed, interrupted, quarantined };
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
  int gpus = 0;  // GPUs a multi-GPU pair ran on (docs/multi-gpu.md); 0 for every other pair
  // Processes it ran over under `mpirun`, one GPU each (docs/multi-gpu.md, "Several hosts"): its
  // samples are the slowest rank's, its checks every rank's. 0 for a run in one process.
  int ranks = 0;
  std::optional<VariantMeasurement> baseline, optimized;
  std::optional<Speedup> speedup;
  std::optional<Roofline> roofline;           // of the optimized variant
  std::optional<Roofline> baseline_roofline;
  Verification verification;
  GpuState gpu_before, gpu_after;
  double wall_seconds = 0;
  std::string log_file;  // relative to the run directory
  std::optional<ExpectationCheck> expectation;  // set by `bench run` as the pair finishes
  std::optional<PairProfile> profile;  // `bench run --profile`: Nsight Compute's pass
  std::optional<LibraryComparison> library;  // when a variant of the pair is a library reference
  std::optional<PrecisionResult> precision;  // errors against the float64 reference
};

// How a failed verification or integrity check is enforced (`--verify-phase`, docs/integrity.md):
// `gate` fails the pair, `quarantine` times it but withholds its speedup, `detect` only reports.
enum class VerifyPhase { detect, quarantine, gate };
std::string_view verify_phase_name(VerifyPhase phase);

struct RunResults {
  int schema_version = kResultsSchemaVersion;
  std::string run_id;
  std::string started_at, finished_at;  // ISO 8601 UTC
  bool complete = false;                // false when interrupted
  VerifyPhase verify_phase = VerifyPhase::gate;  // gate for files written before version 2
  std::vector<PairResult> pairs;
};

}  // namespace aisp
