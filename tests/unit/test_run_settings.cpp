// The settings table: each flag parses and range-checks its value, and the JSON the worker
// receives reproduces the settings exactly.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/measurement_settings.hpp"

namespace aisp {
namespace {

const RunSettingDescriptor& descriptor_for(const std::string& flag) {
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    if (flag == descriptor.flag) {
      return descriptor;
    }
  }
  throw std::logic_error("no setting " + flag);
}

// The problem apply_run_setting reports for `flag text`, or "" when it accepts the value.
std::string problem_with(const std::string& flag, const std::string& text) {
  MeasurementSettings settings;
  return apply_run_setting(settings, descriptor_for(flag), text).value_or("");
}

MeasurementSettings settings_unlike_the_defaults() {
  MeasurementSettings settings;
  settings.warmup_runs = 7;
  settings.fixed_samples = 25;
  settings.min_samples = 4;
  settings.min_time_s = 0.125;
  settings.max_noise = 0.0123456789012345;
  settings.max_time_s = 12.5;
  settings.graph_below_us = 7.25;
  settings.pair_timeout_s = 61.0;
  settings.bootstrap_resamples = 5000;
  settings.confidence = 0.99;
  settings.seed = std::numeric_limits<std::uint64_t>::max();
  settings.verify_phase = VerifyPhase::quarantine;
  settings.gpus = 4;
  return settings;
}

TEST(RunSettingDescriptors, EveryFlagAndFieldIsUniqueAndDescribed) {
  std::set<std::string> flags;
  std::set<std::string> fields;
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    EXPECT_TRUE(flags.insert(descriptor.flag).second) << descriptor.flag;
    EXPECT_TRUE(fields.insert(descriptor.field).second) << descriptor.field;
    EXPECT_EQ(std::string(descriptor.flag).rfind("--", 0), 0U) << descriptor.flag;
    EXPECT_FALSE(std::string(descriptor.allowed).empty()) << descriptor.flag;
    EXPECT_FALSE(std::string(descriptor.help).empty()) << descriptor.flag;
  }
  EXPECT_EQ(flags.size(), 13U);
}

TEST(RunSettingDescriptors, DefaultsAreValid) {
  EXPECT_TRUE(validate_measurement_settings(MeasurementSettings{}).empty());
}

TEST(ApplyRunSetting, StoresValidValues) {
  MeasurementSettings settings;
  EXPECT_EQ(apply_run_setting(settings, descriptor_for("--max-noise"), "0.01"), std::nullopt);
  EXPECT_EQ(apply_run_setting(settings, descriptor_for("--iterations"), "0"), std::nullopt);
  EXPECT_EQ(apply_run_setting(settings, descriptor_for("--min-time"), "1e-3"), std::nullopt);
  EXPECT_EQ(apply_run_setting(settings, descriptor_for("--seed"), "18446744073709551615"),
            std::nullopt);
  EXPECT_DOUBLE_EQ(settings.max_noise, 0.01);
  EXPECT_EQ(settings.fixed_samples, 0);
  EXPECT_DOUBLE_EQ(settings.min_time_s, 0.001);
  EXPECT_EQ(settings.seed, std::numeric_limits<std::uint64_t>::max());
}

TEST(ApplyRunSetting, RejectsOutOfRangeSayingWhatIsAllowed) {
  EXPECT_EQ(problem_with("--max-noise", "5"),
            "--max-noise 5: must be a fraction in (0, 1), e.g. 0.005 for 0.5%");
  EXPECT_EQ(problem_with("--max-noise", "0"),
            "--max-noise 0: must be a fraction in (0, 1), e.g. 0.005 for 0.5%");
  EXPECT_EQ(problem_with("--iterations", "-1"),
            "--iterations -1: must be an integer >= 0 (0 = adaptive)");
  EXPECT_NE(problem_with("--min-samples", "0"), "");
  EXPECT_NE(problem_with("--timeout", "0"), "");
  EXPECT_NE(problem_with("--confidence", "1"), "");
  EXPECT_NE(problem_with("--bootstrap-resamples", "10"), "");
}

TEST(ApplyRunSetting, RejectsTextOfTheWrongType) {
  EXPECT_NE(problem_with("--warmup", "abc"), "");
  EXPECT_NE(problem_with("--warmup", "2.5"), "");
  EXPECT_NE(problem_with("--warmup", "3x"), "");
  EXPECT_NE(problem_with("--warmup", ""), "");
  EXPECT_NE(problem_with("--warmup", "99999999999"), "");  // beyond int
  EXPECT_NE(problem_with("--seed", "-3"), "");
  EXPECT_NE(problem_with("--seed", "18446744073709551616"), "");
  EXPECT_NE(problem_with("--min-time", "nan"), "");
  EXPECT_NE(problem_with("--min-time", "inf"), "");
  EXPECT_NE(problem_with("--max-time", "1s"), "");
}

TEST(ApplyRunSetting, LeavesSettingsAloneOnError) {
  MeasurementSettings settings;
  ASSERT_NE(apply_run_setting(settings, descriptor_for("--max-noise"), "5"), std::nullopt);
  EXPECT_EQ(settings, MeasurementSettings{});
}

TEST(ValidateMeasurementSettings, TimeoutMustExceedMaxTimeWhenAdaptive) {
  MeasurementSettings settings;
  settings.max_time_s = 400;
  const std::vector<std::string> problems = validate_measurement_settings(settings);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("--timeout 300 must exceed --max-time 400"), std::string::npos)
      << problems[0];
  settings.fixed_samples = 10;  // no adaptive stop: --max-time does not apply
  EXPECT_TRUE(validate_measurement_settings(settings).empty());
}

TEST(ValidateMeasurementSettings, VerifyOnlyChecksRangesButNotSamplingLimits) {
  MeasurementSettings settings;
  settings.pair_timeout_s = 5;  // below --max-time, which verification does not use
  EXPECT_TRUE(validate_measurement_settings(settings, /*verify_only=*/true).empty());
  EXPECT_FALSE(validate_measurement_settings(settings, /*verify_only=*/false).empty());
  settings.pair_timeout_s = 0;
  EXPECT_FALSE(validate_measurement_settings(settings, /*verify_only=*/true).empty());
}

TEST(ValidateMeasurementSettings, MinTimeMayNotExceedMaxTime) {
  MeasurementSettings settings;
  settings.min_time_s = 30;
  const std::vector<std::string> problems = validate_measurement_settings(settings);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].find("--min-time 30 exceeds --max-time 20"), std::string::npos)
      << problems[0];
}

TEST(MeasurementSettingsJson, RoundTripsThroughText) {
  const MeasurementSettings original = settings_unlike_the_defaults();
  const std::string text = measurement_settings_to_json(original).dump();
  EXPECT_EQ(measurement_settings_from_json(nlohmann::json::parse(text)), original);
}

TEST(MeasurementSettingsJson, DefaultsRoundTrip) {
  const MeasurementSettings defaults;
  EXPECT_EQ(measurement_settings_from_json(measurement_settings_to_json(defaults)), defaults);
}

TEST(MeasurementSettingsJson, UsesTheDescriptorFields) {
  const nlohmann::json json = measurement_settings_to_json(settings_unlike_the_defaults());
  EXPECT_EQ(json.size(), run_setting_descriptors().size());
  EXPECT_EQ(json.at("fixed_samples"), 25);
  EXPECT_EQ(json.at("pair_timeout_s"), 61.0);
  EXPECT_EQ(json.at("seed").get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
}

TEST(MeasurementSettingsJson, LeavesCrossSettingChecksToTheCli) {
  // `bench verify --timeout 5` sends a timeout below the default --max-time to its workers.
  EXPECT_EQ(measurement_settings_from_json(nlohmann::json{{"pair_timeout_s", 5}}).pair_timeout_s,
            5.0);
}

TEST(MeasurementSettingsJson, MissingKeysKeepDefaults) {
  const MeasurementSettings settings =
      measurement_settings_from_json(nlohmann::json{{"warmup_runs", 9}});
  MeasurementSettings expected;
  expected.warmup_runs = 9;
  EXPECT_EQ(settings, expected);
}

TEST(MeasurementSettingsJson, RejectsWhatIsNotASetting) {
  EXPECT_THROW(measurement_settings_from_json(nlohmann::json::array()), std::invalid_argument);
  EXPECT_THROW(measurement_settings_from_json(nlohmann::json{{"warmup", 3}}),
               std::invalid_argument);
  EXPECT_THROW(measurement_settings_from_json(nlohmann::json{{"warmup_runs", 2.5}}),
               std::invalid_argument);
  EXPECT_THROW(measurement_settings_from_json(nlohmann::json{{"warmup_runs", "3"}}),
               std::invalid_argument);
  EXPECT_THROW(measurement_settings_from_json(nlohmann::json{{"warmup_runs", 1LL << 40}}),
               std::invalid_argument);
  EXPECT_THROW(measurement_settings_from_json(nlohmann::json{{"seed", -1}}), std::invalid_argument);
}

TEST(MeasurementSettingsJson, RejectsOutOfRangeValuesWithTheFlagsMessage) {
  try {
    measurement_settings_from_json(nlohmann::json{{"max_noise", 5}});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("--max-noise 5: must be a fraction in (0, 1)"),
              std::string::npos)
        << error.what();
  }
}

TEST(RunSettingsMarkdownTable, HasARowPerSettingWithItsDefault) {
  const std::string table = run_settings_markdown_table();
  for (const RunSettingDescriptor& descriptor : run_setting_descriptors()) {
    EXPECT_NE(table.find(std::string("| `") + descriptor.flag + "` | `" + descriptor.field + "`"),
              std::string::npos)
        << descriptor.flag;
  }
  EXPECT_NE(table.find("| 0.005 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 20261121 |"), std::string::npos) << table;
}

}  // namespace
}  // namespace aisp
