// Expectations files: what gets recorded, how files merge and stay stable, how a run compares.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "temp_files.hpp"
#include <unistd.h>

#include "report/expectations.hpp"

namespace aisp {
namespace {

using test::ScopedTempDir;
using test::read_file;
using test::write_file;

VariantMeasurement measured(double median_ms) {
  VariantMeasurement measurement;
  measurement.stats.count = 20;
  measurement.stats.median = median_ms;
  return measurement;
}

// A pair that passed with verified outputs; callers break it in the way a test needs.
PairResult recordable_pair(const std::string& chapter, const std::string& name, double speedup_low,
                           double speedup_high) {
  PairResult pair;
  pair.target = chapter + ":" + name;
  pair.chapter = chapter;
  pair.pair = name;
  pair.status = PairStatus::passed;
  pair.baseline = measured(0.41234567);
  pair.optimized = measured(0.098123456);
  pair.speedup =
      Speedup{(speedup_low + speedup_high) / 2, speedup_low, speedup_high, 0.95, 2000, "faster"};
  Roofline roofline;
  roofline.fraction = 0.881234;
  roofline.ceiling = "hbm_bandwidth";
  pair.roofline = roofline;
  pair.verification.passed = true;
  pair.verification.checks = {{"within_tolerance", true, ""}};
  return pair;
}

const ExpectationProvenance kProvenance{"NVIDIA H200", "1a2b3c4", "2026-11-21", "run-1"};

TEST(Expectations, UpdateRecordsOnlyPassedVerifiedPairsWithASpeedup) {
  const ScopedTempDir dir("expectations_update");
  const std::filesystem::path ch07 = dir.path() / "ch07_memory_access";

  RunResults results;
  results.pairs.push_back(recordable_pair("ch07", "transpose_padded", 4.1511, 4.2677));
  PairResult verify_only = recordable_pair("ch07", "verify_only", 1, 1);
  verify_only.speedup.reset();
  results.pairs.push_back(verify_only);
  PairResult failed = recordable_pair("ch07", "failed", 2, 3);
  failed.status = PairStatus::failed;
  results.pairs.push_back(failed);
  PairResult unverified = recordable_pair("ch07", "unverified", 2, 3);
  unverified.verification.passed = false;
  results.pairs.push_back(unverified);
  PairResult skipped = recordable_pair("ch18", "fp8_gemm", 2, 3);  // no folder given for ch18
  skipped.status = PairStatus::skipped;
  skipped.speedup.reset();
  results.pairs.push_back(skipped);

  EXPECT_EQ(update_expectations(results, {{"ch07", ch07}}, "h200", kProvenance), 1);
  const std::filesystem::path file = ch07 / "expectations" / "h200.json";
  EXPECT_EQ(expectations_file(ch07, "h200"), file);
  EXPECT_EQ(read_file(file), R"({
  "entries": {
    "ch07:transpose_padded": {
      "baseline_ms": 0.4123,
      "ceiling": "hbm_bandwidth",
      "date": "2026-11-21",
      "git_commit": "1a2b3c4",
      "gpu": "NVIDIA H200",
      "optimized_ms": 0.09812,
      "roofline_fraction": 0.8812,
      "run_id": "run-1",
      "speedup": 4.209,
      "speedup_ci_high": 4.268,
      "speedup_ci_low": 4.151
    }
  },
  "hardware_key": "h200",
  "schema_version": 1
}
)");
}

TEST(Expectations, UpdateMergesWithTheEntriesAlreadyThere) {
  const ScopedTempDir dir("expectations_merge");
  const std::filesystem::path ch07 = dir.path() / "ch07_memory_access";
  RunResults first;
  first.pairs = {recordable_pair("ch07", "transpose_padded", 2, 3),
                 recordable_pair("ch07", "coalesced_copy", 5, 6)};
  EXPECT_EQ(update_expectations(first, {{"ch07", ch07}}, "h200", kProvenance), 2);

  RunResults second;
  second.pairs = {recordable_pair("ch07", "transpose_padded", 4, 4.5)};
  const ExpectationProvenance later{"NVIDIA H200", "5d6e7f8", "2026-11-22", "run-2"};
  EXPECT_EQ(update_expectations(second, {{"ch07", ch07}}, "h200", later), 1);

  const auto entries = load_expectations(expectations_file(ch07, "h200"));
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries.at("ch07:coalesced_copy").speedup_ci_low, 5);
  EXPECT_EQ(entries.at("ch07:coalesced_copy").run_id, "run-1");
  EXPECT_EQ(entries.at("ch07:transpose_padded").speedup_ci_low, 4);
  EXPECT_EQ(entries.at("ch07:transpose_padded").git_commit, "5d6e7f8");
  EXPECT_EQ(entries.at("ch07:transpose_padded").date, "2026-11-22");
}

TEST(Expectations, RecordingTheSameRunTwiceLeavesTheFileUnchanged) {
  const ScopedTempDir dir("expectations_stable");
  const std::filesystem::path ch07 = dir.path() / "ch07_memory_access";
  RunResults results;
  results.pairs = {recordable_pair("ch07", "b_second", 2, 3),
                   recordable_pair("ch07", "a_first", 1.5, 1.7)};
  update_expectations(results, {{"ch07", ch07}}, "h200", kProvenance);
  const std::string first_text = read_file(expectations_file(ch07, "h200"));
  update_expectations(results, {{"ch07", ch07}}, "h200", kProvenance);
  EXPECT_EQ(read_file(expectations_file(ch07, "h200")), first_text);
  EXPECT_LT(first_text.find("ch07:a_first"), first_text.find("ch07:b_second"));
}

TEST(Expectations, APairWithoutARooflineRecordsNulls) {
  const ScopedTempDir dir("expectations_null_roofline");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults results;
  results.pairs = {recordable_pair("ch07", "host_copy", 2, 3)};
  results.pairs[0].roofline.reset();
  update_expectations(results, {{"ch07", ch07}}, "h200", kProvenance);
  const std::string text = read_file(expectations_file(ch07, "h200"));
  EXPECT_NE(text.find("\"roofline_fraction\": null"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ceiling\": null"), std::string::npos) << text;
  const ExpectationEntry entry =
      load_expectations(expectations_file(ch07, "h200")).at("ch07:host_copy");
  EXPECT_FALSE(entry.roofline_fraction.has_value());
  EXPECT_EQ(entry.ceiling, "");
}

TEST(Expectations, UpdateRefusesBadArgumentsAndWritesNothing) {
  const ScopedTempDir dir("expectations_refused");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults results;
  results.pairs = {recordable_pair("ch07", "transpose_padded", 2, 3),
                   recordable_pair("ch09", "unknown_chapter", 2, 3)};
  EXPECT_THROW(update_expectations(results, {{"ch07", ch07}}, "h200", kProvenance),
               std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(expectations_file(ch07, "h200")));

  results.pairs.pop_back();
  EXPECT_THROW(update_expectations(results, {{"ch07", ch07}}, "H200", kProvenance),
               std::invalid_argument);
  EXPECT_THROW(update_expectations(results, {{"ch07", ch07}}, "../h200", kProvenance),
               std::invalid_argument);
  EXPECT_THROW(update_expectations(results, {{"ch07", ch07}}, "", kProvenance),
               std::invalid_argument);
  ExpectationProvenance no_commit = kProvenance;
  no_commit.git_commit.clear();
  EXPECT_THROW(update_expectations(results, {{"ch07", ch07}}, "h200", no_commit),
               std::invalid_argument);
  ExpectationProvenance bad_date = kProvenance;
  bad_date.date = "21.11.2026";
  EXPECT_THROW(update_expectations(results, {{"ch07", ch07}}, "h200", bad_date),
               std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(expectations_file(ch07, "h200")));
}

// The message of the std::runtime_error that loading `file` throws.
std::string load_error(const std::filesystem::path& file) {
  try {
    load_expectations(file);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected std::runtime_error for " << file;
  return {};
}

TEST(Expectations, HardwareKeysOfSeveralGpusAreAccepted) {
  const ScopedTempDir dir("expectations_multi_gpu_key");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults results;
  results.pairs = {recordable_pair("ch07", "transpose_padded", 2, 3)};
  EXPECT_EQ(update_expectations(results, {{"ch07", ch07}}, "h100_sxm+2x_l40s", kProvenance), 1);
  EXPECT_EQ(load_expectations(expectations_file(ch07, "h100_sxm+2x_l40s")).size(), 1U);
}

TEST(Expectations, LoadingAMissingFileGivesNoEntries) {
  const ScopedTempDir dir("expectations_missing");
  EXPECT_TRUE(load_expectations(dir.path() / "expectations" / "h200.json").empty());
}

TEST(Expectations, CorruptFilesAreErrorsNamingTheFileAndField) {
  const ScopedTempDir dir("expectations_corrupt");
  const std::filesystem::path file = dir.path() / "expectations" / "h200.json";

  write_file(file, "{\"schema_version\": 1, \"entries\": {");
  std::string message = load_error(file);
  EXPECT_EQ(message.rfind(file.string() + ": not valid JSON (", 0), 0U) << message;
  EXPECT_NE(message.find("git checkout -- " + file.string()), std::string::npos) << message;

  write_file(file, R"({"schema_version": 1, "hardware_key": "h200", "entries": {
    "ch07:x": {"baseline_ms": 1, "optimized_ms": 0.5, "speedup": 2, "speedup_ci_low": "low",
               "speedup_ci_high": 2.1, "roofline_fraction": null, "ceiling": null,
               "gpu": "g", "git_commit": "c", "date": "2026-11-21", "run_id": "r"}}})");
  message = load_error(file);
  EXPECT_EQ(message.rfind(file.string() +
                              ": entries[\"ch07:x\"].speedup_ci_low: expected a number, got a "
                              "string \"low\"",
                          0),
            0U)
      << message;

  write_file(file, R"({"schema_version": 1, "hardware_key": "h100_sxm", "entries": {}})");
  message = load_error(file);
  EXPECT_NE(message.find("\"h100_sxm\" does not match the file name h200.json"), std::string::npos)
      << message;

  write_file(file, R"({"schema_version": 2, "hardware_key": "h200", "entries": {}})");
  message = load_error(file);
  EXPECT_NE(message.find("schema_version 2 is not supported"), std::string::npos) << message;
}

ExpectationEntry expected_interval(double low, double high) {
  ExpectationEntry entry;
  entry.speedup = (low + high) / 2;
  entry.speedup_ci_low = low;
  entry.speedup_ci_high = high;
  entry.gpu = "NVIDIA H200";
  entry.git_commit = "1a2b3c4";
  entry.date = "2026-11-21";
  entry.run_id = "run-1";
  return entry;
}

TEST(Expectations, ComparisonRule) {
  const std::map<std::string, ExpectationEntry> expectations{
      {"ch07:slower", expected_interval(3.05, 3.20)},
      {"ch07:faster", expected_interval(3.05, 3.20)},
      {"ch07:touching_above", expected_interval(3.05, 3.20)},
      {"ch07:touching_below", expected_interval(3.05, 3.20)},
      {"ch07:overlapping", expected_interval(3.05, 3.20)},
      {"ch07:failed", expected_interval(3.05, 3.20)},
  };
  RunResults results;
  results.pairs = {recordable_pair("ch07", "slower", 2.5, 3.0),
                   recordable_pair("ch07", "faster", 3.3, 3.5),
                   recordable_pair("ch07", "touching_above", 3.2, 3.4),
                   recordable_pair("ch07", "touching_below", 2.9, 3.05),
                   recordable_pair("ch07", "overlapping", 3.0, 3.1),
                   recordable_pair("ch07", "new_pair", 1.9, 2.1),
                   recordable_pair("ch07", "failed", 1.0, 1.1)};
  results.pairs.back().status = PairStatus::failed;

  const std::vector<ExpectationComparison> comparisons =
      compare_with_expectations(results, expectations);
  ASSERT_EQ(comparisons.size(), 6U);  // the failed pair is reported by its status, not compared
  const std::vector<std::pair<std::string, std::string>> expected_verdicts{
      {"ch07:slower", "regression"},
      {"ch07:faster", "improvement"},
      {"ch07:touching_above", "within expectation"},
      {"ch07:touching_below", "within expectation"},
      {"ch07:overlapping", "within expectation"},
      {"ch07:new_pair", "no expectation"},
  };
  for (std::size_t i = 0; i < expected_verdicts.size(); ++i) {
    EXPECT_EQ(comparisons[i].target, expected_verdicts[i].first);
    EXPECT_EQ(comparisons[i].verdict, expected_verdicts[i].second) << comparisons[i].target;
  }
  EXPECT_EQ(comparisons[0].detail,
            "measured 2.75× [2.50, 3.00], entirely below the expected 3.12× [3.05, 3.20] "
            "(recorded on NVIDIA H200 by run run-1 on 2026-11-21, commit 1a2b3c4)");
}

}  // namespace
}  // namespace aisp
