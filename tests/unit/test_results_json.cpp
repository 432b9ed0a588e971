// results.json / results.jsonl: exact round trips, absent optionals, and errors that name the
// file and the JSON path of the bad field.
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "temp_files.hpp"
#include <unistd.h>

#include "results/results_json.hpp"

namespace aisp {
namespace {

using nlohmann::json;

using test::ScopedTempDir;
using test::read_file;
using test::write_file;

// Every field differs from its default, and doubles have no short decimal form, so a field that
// is dropped or rounded on the way shows up.
SampleStats full_stats(double base) {
  SampleStats stats;
  stats.count = 37;
  stats.median = base;
  stats.mean = base * 1.01;
  stats.trimmed_mean = base * 1.005;
  stats.min = base * 0.9;
  stats.max = base * 1.3;
  stats.stddev = base / 30.0;
  stats.p05 = base * 0.93;
  stats.p25 = base * 0.97;
  stats.p75 = base * 1.03;
  stats.p95 = base * 1.11;
  stats.p99 = base * 1.2;
  stats.relative_noise = 1.0 / 3.0;
  stats.robust_noise = 1e-7;
  return stats;
}

VariantMeasurement full_measurement(const std::string& variant, double base) {
  VariantMeasurement measurement;
  measurement.variant = variant;
  measurement.method = TimingMethod::graph_replay;
  measurement.runs_per_sample = 64;
  measurement.rotating_sets = 4;
  measurement.event_ms = {base, base * 1.1, 0.1 + 0.2};
  measurement.host_ms = {base * 1.5, 123456789.123};
  measurement.stats = full_stats(base);
  measurement.host_stats = full_stats(base * 1.5);
  measurement.converged = true;
  measurement.stop_reason = "noise 0.4% <= 0.5%";
  measurement.marks = {MarkMeasurement{"first_token", {base * 0.25, base * 0.3}, full_stats(base * 0.25)}};
  return measurement;
}

Roofline full_roofline(double fraction) {
  Roofline roofline;
  roofline.achieved_gbps = 3761.123456789;
  roofline.achieved_tflops = 0.0123;
  roofline.floor_ms = 0.0862;
  roofline.fraction = fraction;
  roofline.bound = "memory";
  roofline.ceiling = "hbm_bandwidth";
  roofline.ceiling_value = 4275.5;
  roofline.ceiling_unit = "GB/s";
  roofline.ceiling_source = "aisp bench peak, 2026-11-20";
  return roofline;
}

GpuState full_gpu_state(unsigned sm_clock) {
  GpuState state;
  state.sm_clock_mhz = sm_clock;
  state.memory_clock_mhz = 3201;
  state.power_w = 412.75;
  state.temperature_c = 61;
  state.throttle_reasons = {"sw_power_cap", "hw_slowdown"};
  return state;
}

PairResult full_pair_result() {
  PairResult result;
  result.target = "ch07:transpose_padded";
  result.chapter = "ch07";
  result.pair = "transpose";
  result.baseline_variant = "baseline_transpose";
  result.optimized_variant = "optimized_transpose_padded";
  result.status = PairStatus::timed_out;
  result.reason = "timed out after 300 s, \"verify\" phase\nsecond line";
  result.signature = {{"n", "4096"}, {"dtype", "f32"}, {"alpha", "0.5"}};
  result.bytes = 134217728.5;
  result.flops = 1.0 / 7.0;
  result.launches = 3;
  result.counters_per_run = {{"tokens", 4096}, {"requests", 0.25}};
  result.gpus = 2;
  result.baseline = full_measurement("baseline_transpose", 0.412345678901);
  result.optimized = full_measurement("optimized_transpose_padded", 0.0981234567);
  result.speedup = Speedup{4.2023, 4.1511, 4.2677, 0.99, 2000, "faster"};
  result.roofline = full_roofline(0.8812345);
  result.baseline_roofline = full_roofline(0.21);
  result.verification.passed = true;
  result.verification.checks = {{"signatures_equal", true, "n=4096 dtype=f32"},
                                {"within_tolerance", false, "max |diff| 3e-5 > atol 1e-5"}};
  result.gpu_before = full_gpu_state(1980);
  result.gpu_after = full_gpu_state(1755);
  result.wall_seconds = 12.345;
  result.log_file = "logs/ch07_transpose_padded.log";
  ExpectationCheck expectation;
  expectation.verdict = "regression";
  expectation.hardware_key = "h200";
  expectation.threshold = 0.05;
  expectation.expected_speedup = 5.123456789;
  expectation.expected_ci_low = 5.0123;
  expectation.expected_ci_high = 5.2987;
  expectation.expected_baseline_ms = 0.4123;
  expectation.expected_optimized_ms = 0.08047;
  expectation.recorded = "NVIDIA H200, commit a3c7892717b5, 2026-11-22, run r0";
  expectation.detail = "measured 4.20× [4.15, 4.27], below the expected \"5.12×\"";
  expectation.expected_library_fraction = 0.9312345;
  expectation.expected_library_fraction_ci_low = 0.92;
  expectation.expected_library_fraction_ci_high = 0.9401;
  result.expectation = expectation;
  LibraryComparison library;
  library.library = "cuBLASLt";
  library.reference_variant = "optimized_transpose_cublaslt";
  library.role = LibraryRole::timed;
  library.fraction =
      Speedup{0.9312345678, 0.9198765, 0.94012, 0.99, 2000, "no significant difference"};
  library.reference = full_measurement("optimized_transpose_cublaslt", 0.0913456789);
  library.reason = "a reason kept even beside a fraction";
  result.library = library;
  PrecisionResult precision;
  precision.baseline.variant = "baseline_transpose";
  precision.baseline.outputs = {OutputError{"out", 2048, 1.0 / 3e7, 2.5e-7, 1.0 / 7e6, 1900},
                                OutputError{"scale", 16, 0.0, 0.0, std::nullopt, 0}};
  precision.optimized.variant = "optimized_transpose_padded";
  precision.optimized.outputs = {OutputError{"out", 2048, 0.0361234567, 0.51234, 0.2133, 1900},
                                 OutputError{"scale", 16, 1e-9, 3e-9, 2e-9, 16}};
  precision.optimized.lower_precision =
      PrecisionDeclaration{"fp8_e4m3 \"A\" and B", 0.05, "3 mantissa bits: 2^-4 / sqrt(3)"};
  result.precision = precision;
  return result;
}

// A pair that was skipped before anything ran: every optional unset.
PairResult skipped_pair_result() {
  PairResult result;
  result.target = "ch18:fp8_gemm";
  result.chapter = "ch18";
  result.pair = "fp8_gemm";
  result.baseline_variant = "baseline_fp8_gemm";
  result.optimized_variant = "optimized_fp8_gemm";
  result.status = PairStatus::skipped;
  result.reason = "needs FP8 tensor cores (compute capability 8.9+); this GPU is 8.0";
  return result;
}

RunResults full_run_results() {
  RunResults results;
  results.run_id = "20261121T101500Z-ab12";
  results.started_at = "2026-11-21T10:15:00Z";
  results.finished_at = "2026-11-21T10:20:31Z";
  results.complete = true;
  results.pairs = {full_pair_result(), skipped_pair_result()};
  return results;
}

void expect_same(const SampleStats& actual, const SampleStats& expected) {
  EXPECT_EQ(actual.count, expected.count);
  EXPECT_EQ(actual.median, expected.median);
  EXPECT_EQ(actual.mean, expected.mean);
  EXPECT_EQ(actual.trimmed_mean, expected.trimmed_mean);
  EXPECT_EQ(actual.min, expected.min);
  EXPECT_EQ(actual.max, expected.max);
  EXPECT_EQ(actual.stddev, expected.stddev);
  EXPECT_EQ(actual.p05, expected.p05);
  EXPECT_EQ(actual.p25, expected.p25);
  EXPECT_EQ(actual.p75, expected.p75);
  EXPECT_EQ(actual.p95, expected.p95);
  EXPECT_EQ(actual.p99, expected.p99);
  EXPECT_EQ(actual.relative_noise, expected.relative_noise);
  EXPECT_EQ(actual.robust_noise, expected.robust_noise);
}

void expect_same(const std::optional<VariantMeasurement>& actual,
                 const std::optional<VariantMeasurement>& expected) {
  ASSERT_EQ(actual.has_value(), expected.has_value());
  if (!expected) {
    return;
  }
  EXPECT_EQ(actual->variant, expected->variant);
  EXPECT_EQ(actual->method, expected->method);
  EXPECT_EQ(actual->runs_per_sample, expected->runs_per_sample);
  EXPECT_EQ(actual->rotating_sets, expected->rotating_sets);
  EXPECT_EQ(actual->event_ms, expected->event_ms);
  EXPECT_EQ(actual->host_ms, expected->host_ms);
  expect_same(actual->stats, expected->stats);
  expect_same(actual->host_stats, expected->host_stats);
  EXPECT_EQ(actual->converged, expected->converged);
  EXPECT_EQ(actual->stop_reason, expected->stop_reason);
  ASSERT_EQ(actual->marks.size(), expected->marks.size());
  for (std::size_t i = 0; i < expected->marks.size(); ++i) {
    EXPECT_EQ(actual->marks[i].name, expected->marks[i].name);
    EXPECT_EQ(actual->marks[i].ms, expected->marks[i].ms);
    expect_same(actual->marks[i].stats, expected->marks[i].stats);
  }
}

void expect_same(const std::optional<Speedup>& actual, const std::optional<Speedup>& expected) {
  ASSERT_EQ(actual.has_value(), expected.has_value());
  if (!expected) {
    return;
  }
  EXPECT_EQ(actual->value, expected->value);
  EXPECT_EQ(actual->ci_low, expected->ci_low);
  EXPECT_EQ(actual->ci_high, expected->ci_high);
  EXPECT_EQ(actual->confidence, expected->confidence);
  EXPECT_EQ(actual->resamples, expected->resamples);
  EXPECT_EQ(actual->verdict, expected->verdict);
}

void expect_same(const std::optional<Roofline>& actual, const std::optional<Roofline>& expected) {
  ASSERT_EQ(actual.has_value(), expected.has_value());
  if (!expected) {
    return;
  }
  EXPECT_EQ(actual->achieved_gbps, expected->achieved_gbps);
  EXPECT_EQ(actual->achieved_tflops, expected->achieved_tflops);
  EXPECT_EQ(actual->floor_ms, expected->floor_ms);
  EXPECT_EQ(actual->fraction, expected->fraction);
  EXPECT_EQ(actual->bound, expected->bound);
  EXPECT_EQ(actual->ceiling, expected->ceiling);
  EXPECT_EQ(actual->ceiling_value, expected->ceiling_value);
  EXPECT_EQ(actual->ceiling_unit, expected->ceiling_unit);
  EXPECT_EQ(actual->ceiling_source, expected->ceiling_source);
}

void expect_same(const GpuState& actual, const GpuState& expected) {
  EXPECT_EQ(actual.sm_clock_mhz, expected.sm_clock_mhz);
  EXPECT_EQ(actual.memory_clock_mhz, expected.memory_clock_mhz);
  EXPECT_EQ(actual.power_w, expected.power_w);
  EXPECT_EQ(actual.temperature_c, expected.temperature_c);
  EXPECT_EQ(actual.throttle_reasons, expected.throttle_reasons);
}

void expect_same(const PairResult& actual, const PairResult& expected) {
  SCOPED_TRACE(expected.target);
  EXPECT_EQ(actual.target, expected.target);
  EXPECT_EQ(actual.chapter, expected.chapter);
  EXPECT_EQ(actual.pair, expected.pair);
  EXPECT_EQ(actual.baseline_variant, expected.baseline_variant);
  EXPECT_EQ(actual.optimized_variant, expected.optimized_variant);
  EXPECT_EQ(actual.status, expected.status);
  EXPECT_EQ(actual.reason, expected.reason);
  EXPECT_EQ(actual.signature, expected.signature);
  EXPECT_EQ(actual.bytes, expected.bytes);
  EXPECT_EQ(actual.flops, expected.flops);
  EXPECT_EQ(actual.launches, expected.launches);
  EXPECT_EQ(actual.counters_per_run, expected.counters_per_run);
  EXPECT_EQ(actual.gpus, expected.gpus);
  expect_same(actual.baseline, expected.baseline);
  expect_same(actual.optimized, expected.optimized);
  expect_same(actual.speedup, expected.speedup);
  expect_same(actual.roofline, expected.roofline);
  expect_same(actual.baseline_roofline, expected.baseline_roofline);
  EXPECT_EQ(actual.verification.passed, expected.verification.passed);
  ASSERT_EQ(actual.verification.checks.size(), expected.verification.checks.size());
  for (std::size_t i = 0; i < expected.verification.checks.size(); ++i) {
    EXPECT_EQ(actual.verification.checks[i].check, expected.verification.checks[i].check);
    EXPECT_EQ(actual.verification.checks[i].passed, expected.verification.checks[i].passed);
    EXPECT_EQ(actual.verification.checks[i].detail, expected.verification.checks[i].detail);
  }
  expect_same(actual.gpu_before, expected.gpu_before);
  expect_same(actual.gpu_after, expected.gpu_after);
  EXPECT_EQ(actual.wall_seconds, expected.wall_seconds);
  EXPECT_EQ(actual.log_file, expected.log_file);
  ASSERT_EQ(actual.expectation.has_value(), expected.expectation.has_value());
  if (expected.expectation) {
    EXPECT_EQ(actual.expectation->verdict, expected.expectation->verdict);
    EXPECT_EQ(actual.expectation->hardware_key, expected.expectation->hardware_key);
    EXPECT_EQ(actual.expectation->threshold, expected.expectation->threshold);
    EXPECT_EQ(actual.expectation->expected_speedup, expected.expectation->expected_speedup);
    EXPECT_EQ(actual.expectation->expected_ci_low, expected.expectation->expected_ci_low);
    EXPECT_EQ(actual.expectation->expected_ci_high, expected.expectation->expected_ci_high);
    EXPECT_EQ(actual.expectation->expected_baseline_ms,
              expected.expectation->expected_baseline_ms);
    EXPECT_EQ(actual.expectation->expected_optimized_ms,
              expected.expectation->expected_optimized_ms);
    EXPECT_EQ(actual.expectation->recorded, expected.expectation->recorded);
    EXPECT_EQ(actual.expectation->detail, expected.expectation->detail);
    EXPECT_EQ(actual.expectation->expected_library_fraction,
              expected.expectation->expected_library_fraction);
    EXPECT_EQ(actual.expectation->expected_library_fraction_ci_low,
              expected.expectation->expected_library_fraction_ci_low);
    EXPECT_EQ(actual.expectation->expected_library_fraction_ci_high,
              expected.expectation->expected_library_fraction_ci_high);
  }
  ASSERT_EQ(actual.library.has_value(), expected.library.has_value());
  if (expected.library) {
    EXPECT_EQ(actual.library->library, expected.library->library);
    EXPECT_EQ(actual.library->reference_variant, expected.library->reference_variant);
    EXPECT_EQ(actual.library->role, expected.library->role);
    expect_same(actual.library->fraction, expected.library->fraction);
    expect_same(actual.library->reference, expected.library->reference);
    EXPECT_EQ(actual.library->reason, expected.library->reason);
  }
  ASSERT_EQ(actual.precision.has_value(), expected.precision.has_value());
  if (expected.precision) {
    for (const auto& [a, e] :
         {std::pair{&actual.precision->baseline, &expected.precision->baseline},
          std::pair{&actual.precision->optimized, &expected.precision->optimized}}) {
      EXPECT_EQ(a->variant, e->variant);
      ASSERT_EQ(a->outputs.size(), e->outputs.size());
      for (std::size_t i = 0; i < e->outputs.size(); ++i) {
        EXPECT_EQ(a->outputs[i].output, e->outputs[i].output);
        EXPECT_EQ(a->outputs[i].sampled, e->outputs[i].sampled);
        EXPECT_EQ(a->outputs[i].relative_rms, e->outputs[i].relative_rms);
        EXPECT_EQ(a->outputs[i].max_abs, e->outputs[i].max_abs);
        EXPECT_EQ(a->outputs[i].max_relative, e->outputs[i].max_relative);
        EXPECT_EQ(a->outputs[i].relative_elements, e->outputs[i].relative_elements);
      }
      ASSERT_EQ(a->lower_precision.has_value(), e->lower_precision.has_value());
      if (e->lower_precision) {
        EXPECT_EQ(a->lower_precision->format, e->lower_precision->format);
        EXPECT_EQ(a->lower_precision->max_relative_rms, e->lower_precision->max_relative_rms);
        EXPECT_EQ(a->lower_precision->justification, e->lower_precision->justification);
      }
    }
  }
}

void expect_same(const RunResults& actual, const RunResults& expected) {
  EXPECT_EQ(actual.schema_version, expected.schema_version);
  EXPECT_EQ(actual.run_id, expected.run_id);
  EXPECT_EQ(actual.started_at, expected.started_at);
  EXPECT_EQ(actual.finished_at, expected.finished_at);
  EXPECT_EQ(actual.complete, expected.complete);
  ASSERT_EQ(actual.pairs.size(), expected.pairs.size());
  for (std::size_t i = 0; i < expected.pairs.size(); ++i) {
    expect_same(actual.pairs[i], expected.pairs[i]);
  }
}

// The message of the ResultsFormatError that `read` throws, or a failure when none is thrown.
template <class Read>
std::string format_error_of(Read read) {
  try {
    read();
  } catch (const ResultsFormatError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a ResultsFormatError";
  return {};
}

TEST(ResultsJson, FullRunResultsRoundTripExactlyThroughText) {
  const RunResults original = full_run_results();
  const std::string text = to_json(original).dump(2);
  expect_same(run_results_from_json(json::parse(text)), original);
}

TEST(ResultsJson, RoundTripThroughFile) {
  const ScopedTempDir dir("results_round_trip");
  const RunResults original = full_run_results();
  write_json_atomically(dir.path() / "results.json", to_json(original));
  expect_same(load_run_results(dir.path() / "results.json"), original);
}

TEST(ResultsJson, UnsetOptionalsAreAbsentAndStayUnset) {
  const PairResult original = skipped_pair_result();
  const json value = to_json(original);
  for (const char* key : {"baseline", "optimized", "speedup", "roofline", "baseline_roofline",
                          "expectation", "library", "precision"}) {
    EXPECT_FALSE(value.contains(key)) << key;
  }
  for (const char* key : {"sm_clock_mhz", "memory_clock_mhz", "power_w", "temperature_c"}) {
    EXPECT_FALSE(value["gpu_before"].contains(key)) << key;
  }
  expect_same(pair_result_from_json(json::parse(value.dump())), original);
}

TEST(ResultsJson, AnExpectationWithoutRecordedNumbersLeavesThemOut) {
  PairResult result = skipped_pair_result();
  ExpectationCheck check;
  check.verdict = "not_compared";
  check.hardware_key = "h200";
  check.threshold = 0.05;
  check.detail = "the pair's status is skipped: no speedup to compare";
  result.expectation = check;
  const json value = to_json(result);
  EXPECT_EQ(value["expectation"]["verdict"], "not_compared");
  for (const char* key : {"expected_speedup", "expected_ci_low", "expected_ci_high",
                          "expected_baseline_ms", "expected_optimized_ms"}) {
    EXPECT_FALSE(value["expectation"].contains(key)) << key;
  }
  expect_same(pair_result_from_json(json::parse(value.dump())), result);
}

TEST(ResultsJson, FieldsUseSnakeCaseNamesAndMirrorTheStructs) {
  const json value = to_json(full_pair_result());
  EXPECT_EQ(value["status"], "timed_out");
  EXPECT_EQ(value["baseline"]["method"], "graph_replay");
  EXPECT_EQ(value["signature"][0], (json{{"name", "n"}, {"value", "4096"}}));
  EXPECT_EQ(value["counters_per_run"][1], (json{{"name", "requests"}, {"value", 0.25}}));
  EXPECT_EQ(value["gpus"], 2);
  PairResult one_gpu = full_pair_result();
  one_gpu.gpus = 0;  // every pair but a multi-GPU one: no key
  EXPECT_FALSE(to_json(one_gpu).contains("gpus"));
  EXPECT_EQ(value["speedup"]["ci_low"], 4.1511);
  EXPECT_EQ(value["gpu_after"]["sm_clock_mhz"], 1755);
  EXPECT_EQ(to_json(full_run_results())["schema_version"], kResultsSchemaVersion);
}

TEST(ResultsJson, EnumNamesAndParsersAreInverse) {
  for (PairStatus status : {PairStatus::passed, PairStatus::failed, PairStatus::skipped,
                            PairStatus::timed_out, PairStatus::crashed, PairStatus::interrupted}) {
    EXPECT_EQ(parse_pair_status(pair_status_name(status)), status);
  }
  for (TimingMethod method :
       {TimingMethod::cuda_events, TimingMethod::graph_replay, TimingMethod::host_clock}) {
    EXPECT_EQ(parse_timing_method(timing_method_name(method)), method);
  }
  EXPECT_EQ(pair_status_name(PairStatus::timed_out), "timed_out");
  EXPECT_EQ(timing_method_name(TimingMethod::cuda_events), "cuda_events");
  EXPECT_FALSE(parse_pair_status("Passed"));
  EXPECT_FALSE(parse_timing_method("events"));
}

TEST(ResultsJson, NonFiniteNumbersAreWrittenAsNullAndReadAsNaN) {
  PairResult result = full_pair_result();
  result.baseline->stats.relative_noise = std::numeric_limits<double>::quiet_NaN();
  result.speedup->value = std::numeric_limits<double>::infinity();
  const json value = json::parse(to_json(result).dump());
  EXPECT_TRUE(value["baseline"]["stats"]["relative_noise"].is_null());
  EXPECT_TRUE(value["speedup"]["value"].is_null());
  const PairResult read = pair_result_from_json(value);
  EXPECT_TRUE(std::isnan(read.baseline->stats.relative_noise));
  EXPECT_TRUE(std::isnan(read.speedup->value));
}

TEST(ResultsJson, WrongTypeNamesTheJsonPath) {
  json value = to_json(full_run_results());
  value["pairs"][1] = to_json(full_pair_result());
  value["pairs"][1]["speedup"]["ci_low"] = "fast";
  EXPECT_EQ(format_error_of([&] { run_results_from_json(value); }),
            "pairs[1].speedup.ci_low: expected a number, got a string \"fast\"");
}

TEST(ResultsJson, MissingFieldNamesTheJsonPath) {
  json value = to_json(full_run_results());
  value["pairs"][0]["verification"]["checks"][1].erase("detail");
  EXPECT_EQ(format_error_of([&] { run_results_from_json(value); }),
            "pairs[0].verification.checks[1].detail: missing; expected a string");
}

TEST(ResultsJson, UnknownEnumNameListsTheKnownNames) {
  json value = to_json(full_pair_result());
  value["status"] = "pased";
  EXPECT_EQ(format_error_of([&] { pair_result_from_json(value); }),
            "status: expected one of passed, failed, skipped, timed_out, crashed, interrupted, "
            "quarantined, got a string \"pased\"");
  value = to_json(full_pair_result());
  value["optimized"]["method"] = "events";
  EXPECT_EQ(format_error_of([&] { pair_result_from_json(value); }),
            "optimized.method: expected one of cuda_events, graph_replay, host_clock, got a "
            "string \"events\"");
}

TEST(ResultsJson, IntegersAreRangeChecked) {
  json value = to_json(full_pair_result());
  value["baseline"]["stats"]["count"] = -1;
  EXPECT_EQ(format_error_of([&] { pair_result_from_json(value); }),
            "baseline.stats.count: expected a non-negative integer, got the number -1");
  value = to_json(full_pair_result());
  value["gpu_before"]["sm_clock_mhz"] = 1980.5;
  EXPECT_EQ(format_error_of([&] { pair_result_from_json(value); }),
            "gpu_before.sm_clock_mhz: expected an integer from 0 to 4294967295, got the number "
            "1980.5");
}

TEST(ResultsJson, LoadErrorsNameTheFile) {
  const ScopedTempDir dir("results_load_errors");
  const std::filesystem::path file = dir.path() / "results.json";
  json value = to_json(full_run_results());
  value["pairs"][0]["roofline"]["fraction"] = json::array();
  write_file(file, value.dump());
  EXPECT_EQ(format_error_of([&] { load_run_results(file); }),
            file.string() + ": pairs[0].roofline.fraction: expected a number, got an array");

  write_file(file, "{\"schema_version\": 1, \"run_id\": ");
  const std::string truncated = format_error_of([&] { load_run_results(file); });
  EXPECT_EQ(truncated.rfind(file.string() + ": not valid JSON (", 0), 0U) << truncated;

  write_file(file, "[1, 2]");
  EXPECT_EQ(format_error_of([&] { load_run_results(file); }),
            file.string() + ": the top level: expected an object, got an array");
}

TEST(ResultsJson, MissingFileIsAReadErrorNamingTheFile) {
  const ScopedTempDir dir("results_missing");
  const std::filesystem::path file = dir.path() / "results.json";
  try {
    load_run_results(file);
    FAIL() << "expected std::runtime_error";
  } catch (const ResultsFormatError& error) {
    FAIL() << "a missing file is not a format error: " << error.what();
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot read " + file.string()), std::string::npos)
        << error.what();
  }
}

TEST(ResultsJson, OtherSchemaVersionsAreRefused) {
  json value = to_json(full_run_results());
  value["schema_version"] = kResultsSchemaVersion + 1;
  value["pairs"] = "a layout this build does not know";
  const std::string message = format_error_of([&] { run_results_from_json(value); });
  EXPECT_NE(message.find("schema_version 4 is not supported"), std::string::npos) << message;
  EXPECT_NE(message.find("reads results schema versions 1 to 3"), std::string::npos) << message;
  value["schema_version"] = 0;
  EXPECT_NE(format_error_of([&] { run_results_from_json(value); })
                .find("schema_version 0 is not supported"),
            std::string::npos);

  value.erase("schema_version");
  EXPECT_EQ(
      format_error_of([&] { run_results_from_json(value); }).rfind("schema_version: missing", 0),
      0U);
}

TEST(ResultsJson, LibraryAndPrecisionUseTheirDocumentedNames) {
  const json value = to_json(full_pair_result());
  EXPECT_EQ(value["library"]["name"], "cuBLASLt");
  EXPECT_EQ(value["library"]["role"], "timed");
  EXPECT_EQ(value["library"]["fraction"]["verdict"], "no significant difference");
  EXPECT_EQ(value["library"]["reference"]["variant"], "optimized_transpose_cublaslt");
  const json& optimized = value["precision"]["optimized"];
  EXPECT_EQ(optimized["outputs"][0]["output"], "out");
  EXPECT_EQ(optimized["outputs"][0]["relative_elements"], 1900);
  EXPECT_EQ(optimized["lower_precision"]["max_relative_rms"], 0.05);
  EXPECT_FALSE(value["precision"]["baseline"]["outputs"][1].contains("max_relative"));
  EXPECT_FALSE(value["precision"]["baseline"].contains("lower_precision"));

  json bad = value;
  bad["library"]["role"] = "oracle";
  const std::string message = format_error_of([&] { pair_result_from_json(bad); });
  EXPECT_NE(message.find("library.role"), std::string::npos) << message;
  EXPECT_NE(message.find("reference, timed, baseline"), std::string::npos) << message;
}

// Files of versions 1 and 2 hold neither a library comparison nor a precision result: they read
// with both unset.
TEST(ResultsJson, Version2FilesStillReadWithoutTheVersion3Fields) {
  json value = to_json(full_run_results());
  value["schema_version"] = 2;
  for (json& pair : value["pairs"]) {
    pair.erase("library");
    pair.erase("precision");
  }
  const RunResults read = run_results_from_json(value);
  EXPECT_EQ(read.schema_version, 2);
  ASSERT_EQ(read.pairs.size(), 2u);
  EXPECT_FALSE(read.pairs[0].library.has_value());
  EXPECT_FALSE(read.pairs[0].precision.has_value());
  EXPECT_EQ(to_json(read)["schema_version"], kResultsSchemaVersion);
}

TEST(ResultsJson, JsonLineIsOneCompleteLine) {
  PairResult result = full_pair_result();
  result.reason = "first line\nsecond line\r\n\tand invalid UTF-8: \xff\xfe";
  const std::string line = to_json_line(result);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.find('\r'), std::string::npos);
  const json value = json::parse(line);
  EXPECT_EQ(value["schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(pair_result_from_json(value).reason.rfind("first line\nsecond line\r\n\t", 0), 0U);
}

TEST(ResultsJson, JsonLinesStreamDropsOnlyATornLastLine) {
  const ScopedTempDir dir("results_jsonl");
  const std::filesystem::path file = dir.path() / "results.jsonl";
  const std::string first = to_json_line(full_pair_result());
  const std::string second = to_json_line(skipped_pair_result());
  write_file(file, first + "\n" + second + "\n" + second.substr(0, second.size() / 2));
  const std::vector<PairResult> read = load_json_lines(file);
  ASSERT_EQ(read.size(), 2U);
  expect_same(read[0], full_pair_result());
  expect_same(read[1], skipped_pair_result());

  write_file(file, first + "\n" + second.substr(0, 20) + "\n" + second + "\n");
  const std::string message = format_error_of([&] { load_json_lines(file); });
  EXPECT_EQ(message.rfind(file.string() + ":2: not valid JSON", 0), 0U) << message;

  json bad = json::parse(second);
  bad["wall_seconds"] = "long";
  write_file(file, first + "\n" + bad.dump() + "\n");
  EXPECT_EQ(format_error_of([&] { load_json_lines(file); }),
            file.string() + ":2: wall_seconds: expected a number, got a string \"long\"");
}

TEST(ResultsJson, WriteJsonAtomicallyReplacesTheFileAndLeavesNoTemporary) {
  const ScopedTempDir dir("results_atomic");
  const std::filesystem::path file = dir.path() / "results.json";
  write_json_atomically(file, json{{"first", 1}});
  write_json_atomically(file, json{{"second", 2}});
  EXPECT_EQ(read_file(file), "{\n  \"second\": 2\n}\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1U);
}

TEST(ResultsJson, WriteJsonAtomicallyNamesTheFileItCannotWrite) {
  const ScopedTempDir dir("results_unwritable");
  const std::filesystem::path file = dir.path() / "no_such_directory" / "results.json";
  try {
    write_json_atomically(file, json::object());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()).rfind("cannot write " + file.string(), 0), 0U)
        << error.what();
  }
}

}  // namespace
}  // namespace aisp
