#include "results/results_json.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "core/result_names.hpp"
#include "results/json_fields.hpp"
#include "results/profile_json.hpp"

namespace aisp {
namespace {

using json_fields::JsonFieldError;
using json_fields::number_to_json;
using json_fields::ObjectFields;
using nlohmann::json;

// Strings are dumped with invalid UTF-8 replaced: a crash log excerpt must never stop a result
// from being written.
std::string dump_json(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

// ---- writing ------------------------------------------------------------------------------

json stats_to_json(const SampleStats& stats) {
  return json{
      {"count", stats.count},
      {"median", number_to_json(stats.median)},
      {"mean", number_to_json(stats.mean)},
      {"trimmed_mean", number_to_json(stats.trimmed_mean)},
      {"min", number_to_json(stats.min)},
      {"max", number_to_json(stats.max)},
      {"stddev", number_to_json(stats.stddev)},
      {"p05", number_to_json(stats.p05)},
      {"p25", number_to_json(stats.p25)},
      {"p75", number_to_json(stats.p75)},
      {"p95", number_to_json(stats.p95)},
      {"p99", number_to_json(stats.p99)},
      {"relative_noise", number_to_json(stats.relative_noise)},
      {"robust_noise", number_to_json(stats.robust_noise)},
  };
}

json numbers_to_json(const std::vector<double>& values) {
  json array = json::array();
  for (double value : values) {
    array.push_back(number_to_json(value));
  }
  return array;
}

json measurement_to_json(const VariantMeasurement& measurement) {
  json object{
      {"variant", measurement.variant},
      {"method", timing_method_name(measurement.method)},
      {"runs_per_sample", measurement.runs_per_sample},
      {"rotating_sets", measurement.rotating_sets},
      {"event_ms", numbers_to_json(measurement.event_ms)},
      {"host_ms", numbers_to_json(measurement.host_ms)},
      {"stats", stats_to_json(measurement.stats)},
      {"host_stats", stats_to_json(measurement.host_stats)},
      {"converged", measurement.converged},
      {"stop_reason", measurement.stop_reason},
  };
  if (!measurement.marks.empty()) {
    json marks = json::array();
    for (const MarkMeasurement& mark : measurement.marks) {
      marks.push_back(json{{"name", mark.name},
                           {"ms", numbers_to_json(mark.ms)},
                           {"stats", stats_to_json(mark.stats)}});
    }
    object["marks"] = std::move(marks);
  }
  return object;
}

json speedup_to_json(const Speedup& speedup) {
  return json{
      {"value", number_to_json(speedup.value)},
      {"ci_low", number_to_json(speedup.ci_low)},
      {"ci_high", number_to_json(speedup.ci_high)},
      {"confidence", number_to_json(speedup.confidence)},
      {"resamples", speedup.resamples},
      {"verdict", speedup.verdict},
  };
}

json roofline_to_json(const Roofline& roofline) {
  return json{
      {"achieved_gbps", number_to_json(roofline.achieved_gbps)},
      {"achieved_tflops", number_to_json(roofline.achieved_tflops)},
      {"floor_ms", number_to_json(roofline.floor_ms)},
      {"fraction", number_to_json(roofline.fraction)},
      {"bound", roofline.bound},
      {"ceiling", roofline.ceiling},
      {"ceiling_value", number_to_json(roofline.ceiling_value)},
      {"ceiling_unit", roofline.ceiling_unit},
      {"ceiling_source", roofline.ceiling_source},
  };
}

json verification_to_json(const Verification& verification) {
  json checks = json::array();
  for (const CheckOutcome& outcome : verification.checks) {
    checks.push_back(
        json{{"check", outcome.check}, {"passed", outcome.passed}, {"detail", outcome.detail}});
  }
  return json{{"passed", verification.passed},
              {"checks", std::move(checks)},
              {"seconds", verification.seconds}};
}

json gpu_state_as_json(const GpuState& state) {
  json object = json::object();
  if (state.sm_clock_mhz) {
    object["sm_clock_mhz"] = *state.sm_clock_mhz;
  }
  if (state.memory_clock_mhz) {
    object["memory_clock_mhz"] = *state.memory_clock_mhz;
  }
  if (state.power_w) {
    object["power_w"] = number_to_json(*state.power_w);
  }
  if (state.temperature_c) {
    object["temperature_c"] = *state.temperature_c;
  }
  object["throttle_reasons"] = state.throttle_reasons;
  return object;
}

json expectation_check_to_json(const ExpectationCheck& check) {
  json object{
      {"verdict", check.verdict},
      {"hardware_key", check.hardware_key},
      {"threshold", number_to_json(check.threshold)},
      {"recorded", check.recorded},
      {"detail", check.detail},
  };
  const std::pair<const char*, const std::optional<double>*> expected[] = {
      {"expected_speedup", &check.expected_speedup},
      {"expected_ci_low", &check.expected_ci_low},
      {"expected_ci_high", &check.expected_ci_high},
      {"expected_baseline_ms", &check.expected_baseline_ms},
      {"expected_optimized_ms", &check.expected_optimized_ms},
      {"expected_library_fraction", &check.expected_library_fraction},
      {"expected_library_fraction_ci_low", &check.expected_library_fraction_ci_low},
      {"expected_library_fraction_ci_high", &check.expected_library_fraction_ci_high},
  };
  for (const auto& [key, value] : expected) {
    if (value->has_value()) {
      object[key] = number_to_json(**value);
    }
  }
  return object;
}

json library_to_json(const LibraryComparison& library) {
  json object{
      {"name", library.library},
      {"reference_variant", library.reference_variant},
      {"role", library_role_name(library.role)},
      {"reason", library.reason},
  };
  if (library.fraction) {
    object["fraction"] = speedup_to_json(*library.fraction);
  }
  if (library.reference) {
    object["reference"] = measurement_to_json(*library.reference);
  }
  return object;
}

json variant_precision_to_json(const VariantPrecision& precision) {
  json outputs = json::array();
  for (const OutputError& error : precision.outputs) {
    json object{
        {"output", error.output},
        {"sampled", error.sampled},
        {"relative_rms", number_to_json(error.relative_rms)},
        {"max_abs", number_to_json(error.max_abs)},
        {"relative_elements", error.relative_elements},
    };
    if (error.max_relative) {
      object["max_relative"] = number_to_json(*error.max_relative);
    }
    outputs.push_back(std::move(object));
  }
  json object{{"variant", precision.variant}, {"outputs", std::move(outputs)}};
  if (precision.lower_precision) {
    object["lower_precision"] =
        json{{"format", precision.lower_precision->format},
             {"max_relative_rms", number_to_json(precision.lower_precision->max_relative_rms)},
             {"justification", precision.lower_precision->justification}};
  }
  return object;
}

json precision_to_json(const PrecisionResult& precision) {
  return json{{"baseline", variant_precision_to_json(precision.baseline)},
              {"optimized", variant_precision_to_json(precision.optimized)}};
}

// ---- reading ------------------------------------------------------------------------------

constexpr long long kIntMin = INT_MIN;
constexpr long long kIntMax = INT_MAX;
constexpr long long kUnsignedMax = UINT_MAX;
constexpr long long kCountMax = LLONG_MAX;

int read_int(const ObjectFields& fields, std::string_view key) {
  return static_cast<int>(fields.integer(key, kIntMin, kIntMax));
}

std::optional<unsigned> read_optional_unsigned(const ObjectFields& fields, std::string_view key) {
  const std::optional<long long> value = fields.optional_integer(key, 0, kUnsignedMax);
  if (!value) {
    return std::nullopt;
  }
  return static_cast<unsigned>(*value);
}

std::vector<double> read_numbers(const ObjectFields& fields, std::string_view key) {
  const json& array = fields.array(key);
  const std::string path = fields.path_of(key);
  std::vector<double> values;
  values.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    values.push_back(json_fields::read_number(array[i], json_fields::element_path(path, i)));
  }
  return values;
}

std::vector<std::string> read_strings(const ObjectFields& fields, std::string_view key) {
  const json& array = fields.array(key);
  const std::string path = fields.path_of(key);
  std::vector<std::string> values;
  values.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    values.push_back(json_fields::read_string(array[i], json_fields::element_path(path, i)));
  }
  return values;
}

SampleStats stats_from_json(const ObjectFields& fields) {
  SampleStats stats;
  stats.count = static_cast<std::size_t>(fields.integer("count", 0, kCountMax));
  stats.median = fields.number("median");
  stats.mean = fields.number("mean");
  stats.trimmed_mean = fields.number("trimmed_mean");
  stats.min = fields.number("min");
  stats.max = fields.number("max");
  stats.stddev = fields.number("stddev");
  stats.p05 = fields.number("p05");
  stats.p25 = fields.number("p25");
  stats.p75 = fields.number("p75");
  stats.p95 = fields.number("p95");
  stats.p99 = fields.number("p99");
  stats.relative_noise = fields.number("relative_noise");
  stats.robust_noise = fields.number("robust_noise");
  return stats;
}

VariantMeasurement measurement_from_json(const ObjectFields& fields) {
  VariantMeasurement measurement;
  measurement.variant = fields.string("variant");
  const std::string method = fields.string("method");
  const std::optional<TimingMethod> parsed_method = parse_timing_method(method);
  if (!parsed_method) {
    json_fields::fail(fields.path_of("method"), "one of " + timing_method_choices(), json(method));
  }
  measurement.method = *parsed_method;
  measurement.runs_per_sample = read_int(fields, "runs_per_sample");
  measurement.rotating_sets = read_int(fields, "rotating_sets");
  measurement.event_ms = read_numbers(fields, "event_ms");
  measurement.host_ms = read_numbers(fields, "host_ms");
  measurement.stats = stats_from_json(fields.object("stats"));
  measurement.host_stats = stats_from_json(fields.object("host_stats"));
  measurement.converged = fields.boolean("converged");
  measurement.stop_reason = fields.string("stop_reason");
  if (fields.optional("marks") != nullptr) {  // absent without marks and in older files
    const json& marks = fields.array("marks");
    const std::string marks_path = fields.path_of("marks");
    for (std::size_t i = 0; i < marks.size(); ++i) {
      const ObjectFields mark(marks[i], json_fields::element_path(marks_path, i));
      measurement.marks.push_back(MarkMeasurement{mark.string("name"), read_numbers(mark, "ms"),
                                                  stats_from_json(mark.object("stats"))});
    }
  }
  return measurement;
}

Speedup speedup_from_json(const ObjectFields& fields) {
  Speedup speedup;
  speedup.value = fields.number("value");
  speedup.ci_low = fields.number("ci_low");
  speedup.ci_high = fields.number("ci_high");
  speedup.confidence = fields.number("confidence");
  speedup.resamples = read_int(fields, "resamples");
  speedup.verdict = fields.string("verdict");
  return speedup;
}

Roofline roofline_from_json(const ObjectFields& fields) {
  Roofline roofline;
  roofline.achieved_gbps = fields.number("achieved_gbps");
  roofline.achieved_tflops = fields.number("achieved_tflops");
  roofline.floor_ms = fields.number("floor_ms");
  roofline.fraction = fields.number("fraction");
  roofline.bound = fields.string("bound");
  roofline.ceiling = fields.string("ceiling");
  roofline.ceiling_value = fields.number("ceiling_value");
  roofline.ceiling_unit = fields.string("ceiling_unit");
  roofline.ceiling_source = fields.string("ceiling_source");
  return roofline;
}

Verification verification_from_json(const ObjectFields& fields) {
  Verification verification;
  verification.passed = fields.boolean("passed");
  const json& checks = fields.array("checks");
  const std::string checks_path = fields.path_of("checks");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const ObjectFields check(checks[i], json_fields::element_path(checks_path, i));
    verification.checks.push_back(
        CheckOutcome{check.string("check"), check.boolean("passed"), check.string("detail")});
  }
  verification.seconds = fields.optional_number("seconds").value_or(0);
  return verification;
}

GpuState gpu_state_from_fields(const ObjectFields& fields) {
  GpuState state;
  state.sm_clock_mhz = read_optional_unsigned(fields, "sm_clock_mhz");
  state.memory_clock_mhz = read_optional_unsigned(fields, "memory_clock_mhz");
  state.power_w = fields.optional_number("power_w");
  state.temperature_c = read_optional_unsigned(fields, "temperature_c");
  state.throttle_reasons = read_strings(fields, "throttle_reasons");
  return state;
}

ExpectationCheck expectation_check_from_json(const ObjectFields& fields) {
  ExpectationCheck check;
  check.verdict = fields.string("verdict");
  check.hardware_key = fields.string("hardware_key");
  check.threshold = fields.number("threshold");
  check.expected_speedup = fields.optional_number("expected_speedup");
  check.expected_ci_low = fields.optional_number("expected_ci_low");
  check.expected_ci_high = fields.optional_number("expected_ci_high");
  check.expected_baseline_ms = fields.optional_number("expected_baseline_ms");
  check.expected_optimized_ms = fields.optional_number("expected_optimized_ms");
  check.expected_library_fraction = fields.optional_number("expected_library_fraction");
  check.expected_library_fraction_ci_low =
      fields.optional_number("expected_library_fraction_ci_low");
  check.expected_library_fraction_ci_high =
      fields.optional_number("expected_library_fraction_ci_high");
  check.recorded = fields.string("recorded");
  check.detail = fields.string("detail");
  return check;
}

template <class Value, class Read>
std::optional<Value> read_optional_object(const ObjectFields& fields, std::string_view key,
                                          Read read) {
  const json* value = fields.optional(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  return read(ObjectFields(*value, fields.path_of(key)));
}

LibraryComparison library_from_json(const ObjectFields& fields) {
  LibraryComparison library;
  library.library = fields.string("name");
  library.reference_variant = fields.string("reference_variant");
  const std::string role = fields.string("role");
  const std::optional<LibraryRole> parsed_role = parse_library_role(role);
  if (!parsed_role) {
    json_fields::fail(fields.path_of("role"), "one of " + library_role_choices(), json(role));
  }
  library.role = *parsed_role;
  library.reason = fields.string("reason");
  library.fraction = read_optional_object<Speedup>(fields, "fraction", speedup_from_json);
  library.reference =
      read_optional_object<VariantMeasurement>(fields, "reference", measurement_from_json);
  return library;
}

VariantPrecision variant_precision_from_json(const ObjectFields& fields) {
  VariantPrecision precision;
  precision.variant = fields.string("variant");
  const json& outputs = fields.array("outputs");
  const std::string outputs_path = fields.path_of("outputs");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const ObjectFields output(outputs[i], json_fields::element_path(outputs_path, i));
    OutputError error;
    error.output = output.string("output");
    error.sampled = static_cast<std::size_t>(output.integer("sampled", 0, kCountMax));
    error.relative_rms = output.number("relative_rms");
    error.max_abs = output.number("max_abs");
    error.max_relative = output.optional_number("max_relative");
    error.relative_elements =
        static_cast<std::size_t>(output.integer("relative_elements", 0, kCountMax));
    precision.outputs.push_back(std::move(error));
  }
  precision.lower_precision = read_optional_object<PrecisionDeclaration>(
      fields, "lower_precision", [](const ObjectFields& declared) {
        return PrecisionDeclaration{declared.string("format"), declared.number("max_relative_rms"),
                                    declared.string("justification")};
      });
  return precision;
}

PrecisionResult precision_from_json(const ObjectFields& fields) {
  return PrecisionResult{variant_precision_from_json(fields.object("baseline")),
                         variant_precision_from_json(fields.object("optimized"))};
}

PairResult pair_result_from_fields(const ObjectFields& fields) {
  PairResult result;
  result.target = fields.string("target");
  result.chapter = fields.string("chapter");
  result.pair = fields.string("pair");
  result.baseline_variant = fields.string("baseline_variant");
  result.optimized_variant = fields.string("optimized_variant");
  const std::string status = fields.string("status");
  const std::optional<PairStatus> parsed_status = parse_pair_status(status);
  if (!parsed_status) {
    json_fields::fail(fields.path_of("status"), "one of " + pair_status_choices(), json(status));
  }
  result.status = *parsed_status;
  result.reason = fields.string("reason");

  const json& signature = fields.array("signature");
  const std::string signature_path = fields.path_of("signature");
  for (std::size_t i = 0; i < signature.size(); ++i) {
    const ObjectFields entry(signature[i], json_fields::element_path(signature_path, i));
    result.signature.emplace_back(entry.string("name"), entry.string("value"));
  }
  result.bytes = fields.number("bytes");
  result.flops = fields.number("flops");
  result.launches = fields.number("launches");
  const json& counters = fields.array("counters_per_run");
  const std::string counters_path = fields.path_of("counters_per_run");
  for (std::size_t i = 0; i < counters.size(); ++i) {
    const ObjectFields counter(counters[i], json_fields::element_path(counters_path, i));
    result.counters_per_run.emplace_back(counter.string("name"), counter.number("value"));
  }
  // Only multi-GPU pairs carry it (and no file before them).
  result.gpus = static_cast<int>(fields.optional_integer("gpus", 2, 64).value_or(0));
  result.ranks = static_cast<int>(fields.optional_integer("ranks", 2, 4096).value_or(0));

  result.baseline =
      read_optional_object<VariantMeasurement>(fields, "baseline", measurement_from_json);
  result.optimized =
      read_optional_object<VariantMeasurement>(fields, "optimized", measurement_from_json);
  result.speedup = read_optional_object<Speedup>(fields, "speedup", speedup_from_json);
  result.roofline = read_optional_object<Roofline>(fields, "roofline", roofline_from_json);
  result.baseline_roofline =
      read_optional_object<Roofline>(fields, "baseline_roofline", roofline_from_json);
  result.verification = verification_from_json(fields.object("verification"));
  result.gpu_before = gpu_state_from_fields(fields.object("gpu_before"));
  result.gpu_after = gpu_state_from_fields(fields.object("gpu_after"));
  result.wall_seconds = fields.number("wall_seconds");
  result.log_file = fields.string("log_file");
  result.expectation =
      read_optional_object<ExpectationCheck>(fields, "expectation", expectation_check_from_json);
  result.profile = read_optional_object<PairProfile>(fields, "profile", profile_from_fields);
  result.library = read_optional_object<LibraryComparison>(fields, "library", library_from_json);
  result.precision =
      read_optional_object<PrecisionResult>(fields, "precision", precision_from_json);
  return result;
}

std::string unsupported_version_message(long long version) {
  return fmt::format("schema_version {} is not supported: this build of aisp reads results schema "
                     "versions {} to {}. Read the file with the aisp build that wrote it, or "
                     "re-run the benchmarks with this one",
                     version, kOldestReadableResultsSchemaVersion, kResultsSchemaVersion);
}

bool is_readable_version(long long version) {
  return version >= kOldestReadableResultsSchemaVersion && version <= kResultsSchemaVersion;
}

// The version of a results file or line, which this build must read; throws otherwise.
long long read_schema_version(const json_fields::ObjectFields& fields) {
  const long long version =
      fields.schema_version(kOldestReadableResultsSchemaVersion, kResultsSchemaVersion);
  if (!is_readable_version(version)) {
    throw ResultsFormatError(unsupported_version_message(version));
  }
  return version;
}

std::string read_text_file(const std::filesystem::path& file, std::string_view what_to_pass) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) {
    const std::string reason = std::generic_category().message(errno);
    throw std::runtime_error(
        fmt::format("cannot read {}: {}; pass {}", file.string(), reason, what_to_pass));
  }
  std::ostringstream text;
  text << stream.rdbuf();
  if (stream.bad()) {
    throw std::runtime_error(fmt::format("error while reading {}", file.string()));
  }
  return text.str();
}

}  // namespace

nlohmann::json to_json(const PairResult& result) {
  json signature = json::array();
  for (const auto& [name, value] : result.signature) {
    signature.push_back(json{{"name", name}, {"value", value}});
  }
  json counters = json::array();
  for (const auto& [name, value] : result.counters_per_run) {
    counters.push_back(json{{"name", name}, {"value", number_to_json(value)}});
  }
  json object{
      {"target", result.target},
      {"chapter", result.chapter},
      {"pair", result.pair},
      {"baseline_variant", result.baseline_variant},
      {"optimized_variant", result.optimized_variant},
      {"status", pair_status_name(result.status)},
      {"reason", result.reason},
      {"signature", std::move(signature)},
      {"bytes", number_to_json(result.bytes)},
      {"flops", number_to_json(result.flops)},
      {"launches", number_to_json(result.launches)},
      {"counters_per_run", std::move(counters)},
      {"verification", verification_to_json(result.verification)},
      {"gpu_before", gpu_state_as_json(result.gpu_before)},
      {"gpu_after", gpu_state_as_json(result.gpu_after)},
      {"wall_seconds", number_to_json(result.wall_seconds)},
      {"log_file", result.log_file},
  };
  if (result.gpus > 1) {
    object["gpus"] = result.gpus;
  }
  if (result.ranks > 1) {
    object["ranks"] = result.ranks;
  }
  if (result.baseline) {
    object["baseline"] = measurement_to_json(*result.baseline);
  }
  if (result.optimized) {
    object["optimized"] = measurement_to_json(*result.optimized);
  }
  if (result.speedup) {
    object["speedup"] = speedup_to_json(*result.speedup);
  }
  if (result.roofline) {
    object["roofline"] = roofline_to_json(*result.roofline);
  }
  if (result.baseline_roofline) {
    object["baseline_roofline"] = roofline_to_json(*result.baseline_roofline);
  }
  if (result.expectation) {
    object["expectation"] = expectation_check_to_json(*result.expectation);
  }
  if (result.profile) {
    object["profile"] = profile_to_json(*result.profile);
  }
  if (result.library) {
    object["library"] = library_to_json(*result.library);
  }
  if (result.precision) {
    object["precision"] = precision_to_json(*result.precision);
  }
  return object;
}

PairResult pair_result_from_json(const nlohmann::json& value) {
  try {
    return pair_result_from_fields(ObjectFields(value, ""));
  } catch (const JsonFieldError& error) {
    throw ResultsFormatError(error.what());
  }
}

nlohmann::json to_json(const RunResults& results) {
  json pairs = json::array();
  for (const PairResult& pair : results.pairs) {
    pairs.push_back(to_json(pair));
  }
  return json{
      {"schema_version", kResultsSchemaVersion},  // the layout written, whatever was read
      {"run_id", results.run_id},
      {"started_at", results.started_at},
      {"finished_at", results.finished_at},
      {"complete", results.complete},
      {"verify_phase", verify_phase_name(results.verify_phase)},
      {"pairs", std::move(pairs)},
  };
}

RunResults run_results_from_json(const nlohmann::json& value) {
  try {
    const ObjectFields fields(value, "");
    // The version is checked first: a file from another version fails with this message rather
    // than with whichever field changed.
    const json* version = fields.optional("schema_version");
    if (version == nullptr) {
      throw JsonFieldError(fmt::format(
          "schema_version: missing; expected the integer {} (this is not an aisp results file, "
          "or it was cut short)",
          kResultsSchemaVersion));
    }
    const long long schema_version = read_schema_version(fields);
    RunResults results;
    results.schema_version = static_cast<int>(schema_version);
    results.run_id = fields.string("run_id");
    results.started_at = fields.string("started_at");
    results.finished_at = fields.string("finished_at");
    results.complete = fields.boolean("complete");
    // Version 1 had no phases: every failed check failed its pair, as the gate phase does.
    if (schema_version >= 2) {
      const std::string phase = fields.string("verify_phase");
      const std::optional<VerifyPhase> parsed_phase = parse_verify_phase(phase);
      if (!parsed_phase) {
        json_fields::fail(fields.path_of("verify_phase"), "one of " + verify_phase_choices(), json(phase));
      }
      results.verify_phase = *parsed_phase;
    }
    const json& pairs = fields.array("pairs");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      results.pairs.push_back(
          pair_result_from_fields(ObjectFields(pairs[i], json_fields::element_path("pairs", i))));
    }
    return results;
  } catch (const JsonFieldError& error) {
    throw ResultsFormatError(error.what());
  }
}

RunResults load_run_results(const std::filesystem::path& results_json) {
  const std::string text =
      read_text_file(results_json, "the results.json of a run directory (artifacts/runs/<run-id>)");
  json value;
  try {
    value = json::parse(text);
  } catch (const json::exception& error) {  // parse_error, or out_of_range for 1e400
    throw ResultsFormatError(fmt::format("{}: not valid JSON ({}); the file is damaged or was not "
                                         "written by aisp",
                                         results_json.string(),
                                         json_fields::describe_parse_error(error)));
  }
  try {
    return run_results_from_json(value);
  } catch (const ResultsFormatError& error) {
    throw ResultsFormatError(fmt::format("{}: {}", results_json.string(), error.what()));
  }
}

std::string to_json_line(const PairResult& result) {
  json object = to_json(result);
  object["schema_version"] = kResultsSchemaVersion;
  return dump_json(object, -1);
}

std::vector<PairResult> load_json_lines(const std::filesystem::path& results_jsonl) {
  const std::string text = read_text_file(
      results_jsonl, "the results.jsonl of a run directory (artifacts/runs/<run-id>)");
  std::vector<PairResult> results;
  std::size_t line_start = 0;
  for (std::size_t line_number = 1; line_start < text.size(); ++line_number) {
    std::size_t line_end = text.find('\n', line_start);
    const bool has_newline = line_end != std::string::npos;
    if (!has_newline) {
      line_end = text.size();
    }
    const std::string_view line(text.data() + line_start, line_end - line_start);
    line_start = line_end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      continue;
    }
    const std::string where = fmt::format("{}:{}", results_jsonl.string(), line_number);
    json value;
    try {
      value = json::parse(line);
    } catch (const json::exception& error) {  // parse_error, or out_of_range for 1e400
      if (!has_newline) {
        break;  // the last write was cut short; everything before it is intact
      }
      throw ResultsFormatError(fmt::format("{}: not valid JSON ({}); the file is damaged", where,
                                           json_fields::describe_parse_error(error)));
    }
    try {
      if (value.is_object() && value.contains("schema_version")) {
        read_schema_version(ObjectFields(value, ""));
      }
      results.push_back(pair_result_from_json(value));
    } catch (const JsonFieldError& error) {
      throw ResultsFormatError(fmt::format("{}: {}", where, error.what()));
    } catch (const ResultsFormatError& error) {
      throw ResultsFormatError(fmt::format("{}: {}", where, error.what()));
    }
  }
  return results;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  // The temporary lives in the same directory (rename is atomic only within one file system)
  // and is hidden; the counter keeps two threads of one process from sharing it.
  static std::atomic<unsigned> next_temporary{0};
  std::filesystem::path temporary = path.parent_path();
  temporary /= fmt::format(".{}.tmp-{}-{}", path.filename().string(), ::getpid(),
                           next_temporary.fetch_add(1));

  const auto fail = [&](std::string_view step, int error_number) {
    const std::string reason = std::generic_category().message(error_number);
    ::unlink(temporary.c_str());
    const std::string directory =
        path.parent_path().empty() ? std::string(".") : path.parent_path().string();
    throw FileWriteError(fmt::format("cannot write {} ({} failed: {}); check that {} exists, "
                                     "is writable and has free space",
                                     path.string(), step, reason, directory));
  };

  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail("creating a temporary file", errno);
  }
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t count = ::write(fd, text.data() + written, text.size() - written);
    if (count < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int error_number = errno;
      ::close(fd);
      fail("write", error_number);
    }
    written += static_cast<std::size_t>(count);
  }
  // fsync so that a crash of the machine right after the rename cannot leave an empty file.
  if (::fsync(fd) != 0) {
    const int error_number = errno;
    ::close(fd);
    fail("fsync", error_number);
  }
  if (::close(fd) != 0) {
    fail("close", errno);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    fail("rename", errno);
  }
}

void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value) {
  write_file_atomically(path, dump_json(value, 2) + "\n");
}

}  // namespace aisp
