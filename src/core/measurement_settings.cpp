// The settings table and everything derived from it: parsing and checking a flag's value, the
// JSON the worker receives and the manifest records, and the table docs/cli.md shows.
#include "core/measurement_settings.hpp"

#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>
#include <system_error>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "core/result_names.hpp"

namespace aisp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

constexpr RunSettingRange at_least(double low) { return {low, true, kInfinity, true}; }
constexpr RunSettingRange above(double low) { return {low, false, kInfinity, true}; }
constexpr RunSettingRange open_interval(double low, double high) {
  return {low, false, high, false};
}

// Parses all of `text` as T (no leading '+', no trailing characters); nullopt otherwise.
template <typename T> std::optional<T> parse_number(const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) {
    return std::nullopt;
  }
  return value;
}

// A setting whose value is one of a few names (the verification phase), not a number.
template <typename T>
constexpr bool kIsNamedSetting = std::is_same_v<std::remove_cv_t<T>, VerifyPhase>;

template <typename T> std::string number_text(T value) {
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return error == std::errc() ? std::string(buffer, end) : std::string("?");
}

// The value of a setting as a double, for range checks.
// nullopt for a setting of names, which has no numeric range.
std::optional<double> numeric_value(const MeasurementSettings& settings,
                                    const RunSettingDescriptor& descriptor) {
  return std::visit(
      [&](auto member) -> std::optional<double> {
        using Value = std::remove_reference_t<decltype(settings.*member)>;
        if constexpr (kIsNamedSetting<Value>) {
          return std::nullopt;
        } else {
          return static_cast<double>(settings.*member);
        }
      },
      descriptor.member);
}

std::string range_problem(const RunSettingDescriptor& descriptor, const std::string& text) {
  return std::string(descriptor.flag) + " " + text + ": must be " + descriptor.allowed;
}

// A value out of its setting's range, one sentence per setting.
std::vector<std::string> range_problems(const MeasurementSettings& settings) {
  std::vector<std::string> problems;
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    const std::optional<double> value = numeric_value(settings, descriptor);
    if (value && (!std::isfinite(*value) || !descriptor.range.contains(*value))) {
      problems.push_back(range_problem(descriptor, run_setting_value_text(settings, descriptor)));
    }
  }
  return problems;
}

}  // namespace

bool RunSettingRange::contains(double value) const {
  if (std::isnan(value)) {
    return false;
  }
  const bool above_low = low_inclusive ? value >= low : value > low;
  const bool below_high = high_inclusive ? value <= high : value < high;
  return above_low && below_high;
}

const std::vector<RunSettingDescriptor>& run_setting_descriptors() {
  using S = MeasurementSettings;
  static const std::vector<RunSettingDescriptor> descriptors = {
      {"--warmup", "warmup_runs", "runs", "an integer >= 0",
       "untimed calls of run() per variant before sampling", &S::warmup_runs, at_least(0), false},
      {"--iterations", "fixed_samples", "samples", "an integer >= 0 (0 = adaptive)",
       "samples per variant: exactly this many when > 0; 0 stops adaptively (--min-samples, "
       "--min-time, --max-noise, --max-time)",
       &S::fixed_samples, at_least(0), false},
      {"--min-samples", "min_samples", "samples", "an integer >= 1",
       "adaptive: never stop before this many samples per variant", &S::min_samples, at_least(1),
       false},
      {"--min-time", "min_time_s", "s", "a number of seconds >= 0",
       "adaptive: summed sample time per variant before stopping", &S::min_time_s, at_least(0),
       false},
      {"--max-noise", "max_noise", "fraction", "a fraction in (0, 1), e.g. 0.005 for 0.5%",
       "adaptive: stop once the relative noise (stddev / mean) is below this", &S::max_noise,
       open_interval(0, 1), false},
      {"--max-time", "max_time_s", "s", "a number of seconds > 0",
       "adaptive: stop sampling a pair after this much wall time, noisy or not", &S::max_time_s,
       above(0), false},
      {"--graph-below-us", "graph_below_us", "us", "a number of microseconds >= 0 (0 = never)",
       "automatic timing mode: time replays of a captured CUDA graph when one run is shorter "
       "than this",
       &S::graph_below_us, at_least(0), false},
      {"--timeout", "pair_timeout_s", "s", "a number of seconds > 0",
       "hard limit for one pair's worker process (verification, warm-up and timing); past it the "
       "pair fails as a hang",
       &S::pair_timeout_s, above(0), true},
      {"--bootstrap-resamples", "bootstrap_resamples", "resamples", "an integer >= 100",
       "bootstrap resamples for the speedup's confidence interval", &S::bootstrap_resamples,
       at_least(100), false},
      {"--confidence", "confidence", "fraction", "a fraction in (0, 1), e.g. 0.95 for 95%",
       "confidence level of the speedup interval; a speedup is claimed only when the interval "
       "excludes 1",
       &S::confidence, open_interval(0, 1), false},
      {"--seed", "seed", "", "an unsigned 64-bit integer",
       "seed every variant fills its inputs from (ctx.seed())", &S::seed, at_least(0), true},
      {"--verify-phase", "verify_phase", "", "one of detect, quarantine, gate",
       "how a failed verification or integrity check is enforced: gate fails the pair; "
       "quarantine still times it but reports no speedup, records it in quarantine.json and "
       "exits 1; detect only reports it (for developing a pair, never for published numbers)",
       &S::verify_phase, RunSettingRange{}, true},
      {"--gpus", "gpus", "GPUs", "an integer from 0 to 64 (0 = each pair the GPUs it needs)",
       "GPUs a multi-GPU pair runs on (devices 0..N-1, one stream and one NCCL rank each); a pair "
       "needing more than N, or N more than are visible, is skipped with the reason; one-GPU "
       "pairs run on GPU 0 whatever N is; 0 gives each pair its Requirements::min_gpus",
       &S::gpus, RunSettingRange{0, true, 64, true}, true},
  };
  return descriptors;
}

std::optional<std::string> apply_run_setting(MeasurementSettings& settings,
                                             const RunSettingDescriptor& descriptor,
                                             const std::string& text) {
  return std::visit(
      [&](auto member) -> std::optional<std::string> {
        using Value = std::remove_reference_t<decltype(settings.*member)>;
        if constexpr (kIsNamedSetting<Value>) {
          const std::optional<VerifyPhase> phase = parse_verify_phase(text);
          if (!phase) {
            return range_problem(descriptor, text);
          }
          settings.*member = *phase;
          return std::nullopt;
        } else {
          const std::optional<Value> value = parse_number<Value>(text);
          if (!value) {
            return range_problem(descriptor, text);
          }
          if constexpr (std::is_floating_point_v<Value>) {
            if (!std::isfinite(*value)) {
              return range_problem(descriptor, text);
            }
          }
          if (!descriptor.range.contains(static_cast<double>(*value))) {
            return range_problem(descriptor, text);
          }
          settings.*member = *value;
          return std::nullopt;
        }
      },
      descriptor.member);
}

std::string run_setting_value_text(const MeasurementSettings& settings,
                                   const RunSettingDescriptor& descriptor) {
  return std::visit(
      [&](auto member) {
        using Value = std::remove_reference_t<decltype(settings.*member)>;
        if constexpr (kIsNamedSetting<Value>) {
          return std::string(verify_phase_name(settings.*member));
        } else {
          return number_text(settings.*member);
        }
      },
      descriptor.member);
}

std::vector<std::string> validate_measurement_settings(const MeasurementSettings& settings,
                                                       bool verify_only) {
  std::vector<std::string> problems = range_problems(settings);
  if (verify_only) {
    return problems;
  }
  const bool adaptive = settings.fixed_samples == 0;
  if (adaptive && settings.min_time_s > settings.max_time_s) {
    problems.push_back("--min-time " + number_text(settings.min_time_s) + " exceeds --max-time " +
                       number_text(settings.max_time_s) +
                       ": sampling would always stop at --max-time first; lower --min-time or "
                       "raise --max-time");
  }
  if (adaptive && settings.pair_timeout_s <= settings.max_time_s) {
    problems.push_back("--timeout " + number_text(settings.pair_timeout_s) +
                       " must exceed --max-time " + number_text(settings.max_time_s) +
                       ": a pair still sampling would be killed as a hang; raise --timeout or "
                       "lower --max-time");
  }
  return problems;
}

nlohmann::json measurement_settings_to_json(const MeasurementSettings& settings) {
  nlohmann::json json = nlohmann::json::object();
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    std::visit(
        [&](auto member) {
          using Value = std::remove_reference_t<decltype(settings.*member)>;
          if constexpr (kIsNamedSetting<Value>) {
            json[descriptor.field] = std::string(verify_phase_name(settings.*member));
          } else {
            json[descriptor.field] = settings.*member;
          }
        },
        descriptor.member);
  }
  return json;
}

MeasurementSettings measurement_settings_from_json(const nlohmann::json& json) {
  if (!json.is_object()) {
    throw std::invalid_argument("measurement settings must be a JSON object, got " +
                                std::string(json.type_name()));
  }
  MeasurementSettings settings;
  std::set<std::string> known;
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    known.insert(descriptor.field);
    const auto found = json.find(descriptor.field);
    if (found == json.end()) {
      continue;
    }
    std::visit(
        [&](auto member) {
          using Value = std::remove_reference_t<decltype(settings.*member)>;
          const nlohmann::json& value = *found;
          bool fits = false;
          if constexpr (kIsNamedSetting<Value>) {
            const std::optional<VerifyPhase> phase =
                value.is_string() ? parse_verify_phase(value.get<std::string>()) : std::nullopt;
            if (phase) {
              settings.*member = *phase;
              return;
            }
          } else if constexpr (std::is_floating_point_v<Value>) {
            fits = value.is_number();
          } else if constexpr (std::is_signed_v<Value>) {
            fits = value.is_number_integer() &&
                   (value.is_number_unsigned()
                        ? value.get<std::uint64_t>() <=
                              static_cast<std::uint64_t>(std::numeric_limits<Value>::max())
                        : value.get<std::int64_t>() >= std::numeric_limits<Value>::min() &&
                              value.get<std::int64_t>() <= std::numeric_limits<Value>::max());
          } else {
            fits = value.is_number_unsigned();
          }
          if (!fits) {
            throw std::invalid_argument(std::string("measurement setting '") + descriptor.field +
                                        "' is " + value.dump() + ": it must be " +
                                        descriptor.allowed);
          }
          if constexpr (!kIsNamedSetting<Value>) {
            settings.*member = value.template get<Value>();
          }
        },
        descriptor.member);
  }
  for (const auto& [key, value] : json.items()) {
    if (!known.contains(key)) {
      throw std::invalid_argument("unknown measurement setting '" + key +
                                  "'; the worker and the orchestrator come from different "
                                  "builds, or the JSON was edited by hand");
    }
  }
  const std::vector<std::string> problems = range_problems(settings);
  if (!problems.empty()) {
    std::string message = "invalid measurement settings: " + problems.front();
    for (std::size_t i = 1; i < problems.size(); ++i) {
      message += "; " + problems[i];
    }
    throw std::invalid_argument(message);
  }
  return settings;
}

std::string run_settings_markdown_table() {
  const MeasurementSettings defaults;
  std::string table = "| flag | manifest key | unit | default | allowed | commands | meaning |\n"
                      "|---|---|---|---|---|---|---|\n";
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    table += std::string("| `") + descriptor.flag + "` | `" + descriptor.field + "` | " +
             descriptor.unit + " | " + run_setting_value_text(defaults, descriptor) + " | " +
             descriptor.allowed + " | " + (descriptor.applies_to_verify ? "run, verify" : "run") +
             " | " + descriptor.help + " |\n";
  }
  return table;
}

}  // namespace aisp
