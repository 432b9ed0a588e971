// Expectations files: what gets recorded, how files merge and stay stable, how a run compares.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "temp_files.hpp"
#include <unistd.h>

#include "policy/expectations.hpp"

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

  // A later run of the same commit on the same GPU: one provenance, no refusal.
  RunResults second;
  second.pairs = {recordable_pair("ch07", "transpose_padded", 4, 4.5)};
  const ExpectationProvenance later{"NVIDIA H200", "1a2b3c4", "2026-11-22", "run-2"};
  EXPECT_EQ(update_expectations(second, {{"ch07", ch07}}, "h200", later), 1);

  const auto entries = load_expectations(expectations_file(ch07, "h200"));
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries.at("ch07:coalesced_copy").speedup_ci_low, 5);
  EXPECT_EQ(entries.at("ch07:coalesced_copy").run_id, "run-1");
  EXPECT_EQ(entries.at("ch07:transpose_padded").speedup_ci_low, 4);
  EXPECT_EQ(entries.at("ch07:transpose_padded").run_id, "run-2");
  EXPECT_EQ(entries.at("ch07:transpose_padded").date, "2026-11-22");
}

// The message of the ExpectationsRefused that `update` throws.
template <class Update>
std::string refusal_of(Update update) {
  try {
    update();
  } catch (const ExpectationsRefused& refused) {
    return refused.what();
  }
  ADD_FAILURE() << "expected ExpectationsRefused";
  return {};
}

TEST(Expectations, AnUpdateThatWouldMixCommitsIsRefusedUnlessAllowed) {
  const ScopedTempDir dir("expectations_mixed_commit");
  const std::filesystem::path ch07 = dir.path() / "ch07_memory_access";
  const std::filesystem::path file = expectations_file(ch07, "h200");
  RunResults first;
  first.pairs = {recordable_pair("ch07", "transpose_padded", 2, 3),
                 recordable_pair("ch07", "coalesced_copy", 5, 6)};
  update_expectations(first, {{"ch07", ch07}}, "h200", kProvenance);
  const std::string before = read_file(file);

  RunResults partial;
  partial.pairs = {recordable_pair("ch07", "transpose_padded", 4, 4.5)};
  const ExpectationProvenance new_commit{"NVIDIA H200", "5d6e7f8", "2026-11-22", "run-2"};
  const std::string message = refusal_of([&] {
    update_expectations(partial, {{"ch07", ch07}}, "h200", new_commit);
  });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("1 entry this run does not re-record (ch07:coalesced_copy) was recorded "
                         "on NVIDIA H200 at commit 1a2b3c4, this run is on NVIDIA H200 at commit "
                         "5d6e7f8"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(-t ch07)"), std::string::npos) << message;
  EXPECT_NE(message.find("--allow-mixed-provenance"), std::string::npos) << message;
  EXPECT_EQ(read_file(file), before);  // nothing written

  ExpectationUpdateOptions allow;
  allow.allow_mixed_provenance = true;
  EXPECT_EQ(update_expectations(partial, {{"ch07", ch07}}, "h200", new_commit, allow), 1);
  const auto entries = load_expectations(file);
  EXPECT_EQ(entries.at("ch07:transpose_padded").git_commit, "5d6e7f8");
  EXPECT_EQ(entries.at("ch07:coalesced_copy").git_commit, "1a2b3c4");
}

TEST(Expectations, AnUpdateThatWouldMixGpusIsRefused) {
  const ScopedTempDir dir("expectations_mixed_gpu");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults first;
  first.pairs = {recordable_pair("ch07", "a", 2, 3), recordable_pair("ch07", "b", 2, 3)};
  update_expectations(first, {{"ch07", ch07}}, "h200", kProvenance);

  RunResults partial;
  partial.pairs = {recordable_pair("ch07", "a", 2, 3)};
  const ExpectationProvenance other_gpu{"NVIDIA H200 NVL", "1a2b3c4", "2026-11-22", "run-2"};
  const std::string message = refusal_of([&] {
    update_expectations(partial, {{"ch07", ch07}}, "h200", other_gpu);
  });
  EXPECT_NE(message.find("recorded on NVIDIA H200 at commit 1a2b3c4, this run is on NVIDIA H200 "
                         "NVL at commit 1a2b3c4"),
            std::string::npos)
      << message;
}

TEST(Expectations, ReRecordingEveryEntryOfAFileIsNeverMixed) {
  const ScopedTempDir dir("expectations_whole_file");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults run;
  run.pairs = {recordable_pair("ch07", "a", 2, 3), recordable_pair("ch07", "b", 2, 3)};
  update_expectations(run, {{"ch07", ch07}}, "h200", kProvenance);
  const ExpectationProvenance elsewhere{"NVIDIA H100 80GB HBM3", "5d6e7f8", "2026-11-23", "run-3"};
  EXPECT_EQ(update_expectations(run, {{"ch07", ch07}}, "h200", elsewhere), 2);
  for (const auto& [target, entry] : load_expectations(expectations_file(ch07, "h200"))) {
    EXPECT_EQ(entry.gpu, "NVIDIA H100 80GB HBM3") << target;
  }
  // The check before a run takes the selected targets; covering the file is enough.
  EXPECT_NO_THROW(check_expectations_update({{"ch07", {"ch07:a", "ch07:b"}}}, {{"ch07", ch07}},
                                            "h200", kProvenance, {}));
  EXPECT_THROW(
      check_expectations_update({{"ch07", {"ch07:a"}}}, {{"ch07", ch07}}, "h200", kProvenance, {}),
      ExpectationsRefused);
}

TEST(Expectations, AShortAndAFullHashOfOneCommitAreOneProvenance) {
  const ScopedTempDir dir("expectations_short_hash");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults run;
  run.pairs = {recordable_pair("ch07", "a", 2, 3), recordable_pair("ch07", "b", 2, 3)};
  const ExpectationProvenance full{"NVIDIA H200", "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
                                   "2026-11-21", "run-1"};
  update_expectations(run, {{"ch07", ch07}}, "h200", full);
  run.pairs.pop_back();
  EXPECT_EQ(update_expectations(run, {{"ch07", ch07}}, "h200", kProvenance), 1);
  // Seven characters is the shortest prefix that counts.
  const ExpectationProvenance too_short{"NVIDIA H200", "1a2b3c", "2026-11-21", "run-2"};
  EXPECT_THROW(update_expectations(run, {{"ch07", ch07}}, "h200", too_short), ExpectationsRefused);
}

TEST(Expectations, ADirtySourceIsRefusedUnlessAllowedAndThenRecordedAsDirty) {
  const ScopedTempDir dir("expectations_dirty");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults run;
  run.pairs = {recordable_pair("ch07", "a", 2, 3), recordable_pair("ch07", "b", 2, 3)};
  ExpectationProvenance dirty = kProvenance;
  dirty.source_dirty = true;
  std::string message = refusal_of([&] {
    update_expectations(run, {{"ch07", ch07}}, "h200", dirty);
  });
  EXPECT_NE(message.find("the source tree at commit 1a2b3c4 has uncommitted changes"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("pass --allow-dirty to record the commit as \"1a2b3c4-dirty\""),
            std::string::npos)
      << message;
  EXPECT_FALSE(std::filesystem::exists(expectations_file(ch07, "h200")));

  ExpectationUpdateOptions allow;
  allow.allow_dirty = true;
  EXPECT_EQ(update_expectations(run, {{"ch07", ch07}}, "h200", dirty, allow), 2);
  EXPECT_EQ(load_expectations(expectations_file(ch07, "h200")).at("ch07:a").git_commit,
            "1a2b3c4-dirty");
  // A dirty commit names no code: another dirty run of the same commit is another provenance.
  run.pairs.pop_back();
  EXPECT_THROW(update_expectations(run, {{"ch07", ch07}}, "h200", dirty, allow),
               ExpectationsRefused);

  ExpectationProvenance unknown = kProvenance;
  unknown.git_commit = "unknown";
  unknown.source_dirty = true;
  message = refusal_of([&] { update_expectations(run, {{"ch07", ch07}}, "h200", unknown); });
  EXPECT_NE(message.find("the git commit of the measured source is unknown"), std::string::npos)
      << message;
  EXPECT_EQ(recorded_commit(unknown), "unknown");
}

TEST(Expectations, OnlyPassedVerifiedPairsAreRecordedEvenWhenAllowed) {
  const ScopedTempDir dir("expectations_only_passed");
  const std::filesystem::path ch07 = dir.path() / "ch07";
  RunResults run;
  PairResult failed = recordable_pair("ch07", "failed", 2, 3);
  failed.status = PairStatus::failed;
  PairResult unverified = recordable_pair("ch07", "unverified", 2, 3);
  unverified.verification.passed = false;
  PairResult timed_out = recordable_pair("ch07", "timed_out", 2, 3);
  timed_out.status = PairStatus::timed_out;
  PairResult no_samples = recordable_pair("ch07", "no_samples", 2, 3);
  no_samples.optimized->stats.count = 0;
  run.pairs = {failed, unverified, timed_out, no_samples};
  ExpectationUpdateOptions allow_all;
  allow_all.allow_dirty = true;
  allow_all.allow_mixed_provenance = true;
  EXPECT_EQ(update_expectations(run, {{"ch07", ch07}}, "h200", kProvenance, allow_all), 0);
  EXPECT_FALSE(std::filesystem::exists(expectations_file(ch07, "h200")));
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

// Recorded: 3.20× [3.15, 3.30]. With the 5% threshold a regression needs the run's interval to end
// under 3.15 / 1.05 = 3.00, an improvement to start over 3.30 × 1.05 = 3.465.
TEST(Expectations, ComparisonRule) {
  ExpectationEntry recorded = expected_interval(3.15, 3.30);
  recorded.speedup = 3.2;
  const std::map<std::string, ExpectationEntry> expectations{
      {"ch07:regression", recorded},  {"ch07:below_within_threshold", recorded},
      {"ch07:improvement", recorded}, {"ch07:above_within_threshold", recorded},
      {"ch07:overlapping", recorded}, {"ch07:failed", recorded},
      {"ch07:unverified", recorded},  {"ch07:not_timed", recorded},
  };
  RunResults results;
  results.pairs = {recordable_pair("ch07", "regression", 2.5, 2.9),
                   recordable_pair("ch07", "below_within_threshold", 2.9, 3.1),
                   recordable_pair("ch07", "improvement", 3.5, 3.7),
                   recordable_pair("ch07", "above_within_threshold", 3.4, 3.6),
                   recordable_pair("ch07", "overlapping", 3.0, 3.2),
                   recordable_pair("ch07", "new_pair", 1.9, 2.1),
                   recordable_pair("ch07", "failed", 1.0, 1.1),
                   recordable_pair("ch07", "unverified", 1.0, 1.1),
                   recordable_pair("ch07", "not_timed", 1.0, 1.1)};
  results.pairs[6].status = PairStatus::failed;
  results.pairs[7].verification.passed = false;
  results.pairs[8].speedup.reset();

  const std::vector<ExpectationCheck> checks =
      compare_with_expectations(results, expectations, "h200");
  ASSERT_EQ(checks.size(), results.pairs.size());  // one verdict per pair, in order
  const std::vector<std::string> verdicts{"regression",   "as_expected",  "improvement",
                                          "as_expected",  "as_expected",  "no_expectation",
                                          "not_compared", "not_compared", "not_compared"};
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    EXPECT_EQ(checks[i].verdict, verdicts[i]) << results.pairs[i].target;
    EXPECT_EQ(checks[i].hardware_key, "h200");
    EXPECT_EQ(checks[i].threshold, kDefaultExpectationThreshold);
    // The recorded numbers travel with the verdict only when there was something to compare.
    const bool compared = i < 5;
    EXPECT_EQ(checks[i].expected_speedup.has_value(), compared) << results.pairs[i].target;
    EXPECT_EQ(checks[i].recorded.empty(), !compared) << results.pairs[i].target;
  }
  EXPECT_EQ(checks[0].expected_ci_low, 3.15);
  EXPECT_EQ(checks[0].expected_ci_high, 3.30);
  EXPECT_EQ(checks[0].detail, "measured 2.70× [2.50, 2.90], below the expected 3.20× [3.15, "
                              "3.30] by more than 5% (the interval ends under 3.00×)");
  EXPECT_EQ(checks[0].recorded, "NVIDIA H200, commit 1a2b3c4, 2026-11-21, run run-1");
  EXPECT_EQ(checks[6].detail, "the pair's status is failed: no speedup to compare");
  EXPECT_NE(checks[7].detail.find("quarantined"), std::string::npos) << checks[7].detail;

  // Threshold 0: the intervals alone decide; 2.9–3.1 now lies wholly below 3.15.
  const std::vector<ExpectationCheck> strict =
      compare_with_expectations(results, expectations, "h200", 0);
  EXPECT_EQ(strict[1].verdict, "regression");
  EXPECT_EQ(strict[3].verdict, "improvement");
  EXPECT_EQ(strict[4].verdict, "as_expected");
}

TEST(Expectations, AnEntrysOwnThresholdWidensTheComparisonAndSurvivesReRecording) {
  const ScopedTempDir dir("expectations_threshold");
  const std::filesystem::path ch01 = dir.path() / "ch01_performance_basics";
  RunResults first;
  first.pairs = {recordable_pair("ch01", "launch_graph", 3.49, 3.60)};
  ASSERT_EQ(update_expectations(first, {{"ch01", ch01}}, "h200", kProvenance), 1);
  // A person widens the threshold of the host-bound pair by hand.
  const std::filesystem::path file = expectations_file(ch01, "h200");
  std::string text = read_file(file);
  const std::string run_field = "\"run_id\": \"run-1\"";
  const std::size_t at = text.find(run_field);
  ASSERT_NE(at, std::string::npos) << text;
  text.insert(at + run_field.size(),
              ",\n      \"threshold\": 0.2,\n      \"threshold_reason\": \"the baseline is a host "
              "launch loop: 3.06x to 3.57x in three runs on one H200\"");
  write_file(file, text);
  auto entries = load_expectations(file);
  ASSERT_TRUE(entries.at("ch01:launch_graph").threshold.has_value());

  // 3.04-3.07 lies more than 5% under 3.49, but not more than 20%.
  RunResults run;
  run.pairs = {recordable_pair("ch01", "launch_graph", 3.04, 3.07)};
  ExpectationCheck check =
      check_against_expectation(run.pairs[0], &entries.at("ch01:launch_graph"), "h200");
  EXPECT_EQ(check.verdict, "as_expected") << check.detail;
  EXPECT_EQ(check.threshold, 0.2);
  EXPECT_NE(check.detail.find("this pair's threshold: the baseline is a host launch loop"),
            std::string::npos)
      << check.detail;
  // Far below even 20%: still a regression. A larger run threshold wins over the entry's.
  run.pairs = {recordable_pair("ch01", "launch_graph", 2.5, 2.6)};
  EXPECT_EQ(check_against_expectation(run.pairs[0], &entries.at("ch01:launch_graph"), "h200")
                .verdict,
            "regression");
  EXPECT_EQ(check_against_expectation(run.pairs[0], &entries.at("ch01:launch_graph"), "h200", 0.5)
                .threshold,
            0.5);

  // Re-recording keeps the hand-set threshold and its reason.
  RunResults second;
  second.pairs = {recordable_pair("ch01", "launch_graph", 3.0, 3.1)};
  ASSERT_EQ(update_expectations(second, {{"ch01", ch01}}, "h200", kProvenance), 1);
  entries = load_expectations(file);
  EXPECT_EQ(entries.at("ch01:launch_graph").speedup_ci_low, 3.0);
  EXPECT_EQ(entries.at("ch01:launch_graph").threshold, 0.2);
  EXPECT_NE(entries.at("ch01:launch_graph").threshold_reason.find("host launch loop"),
            std::string::npos);

  // A threshold without a reason, or out of range, is a corrupt file.
  write_file(file, R"({"schema_version": 1, "hardware_key": "h200", "entries": {"ch01:x": {
      "baseline_ms": 1, "optimized_ms": 1, "speedup": 1, "speedup_ci_low": 1,
      "speedup_ci_high": 1, "roofline_fraction": null, "ceiling": null, "gpu": "g",
      "git_commit": "c", "date": "d", "run_id": "r", "threshold": 0.2}}})");
  EXPECT_THROW(load_expectations(file), std::runtime_error);
  write_file(file, R"({"schema_version": 1, "hardware_key": "h200", "entries": {"ch01:x": {
      "baseline_ms": 1, "optimized_ms": 1, "speedup": 1, "speedup_ci_low": 1,
      "speedup_ci_high": 1, "roofline_fraction": null, "ceiling": null, "gpu": "g",
      "git_commit": "c", "date": "d", "run_id": "r", "threshold": -1,
      "threshold_reason": "why"}}})");
  EXPECT_THROW(load_expectations(file), std::runtime_error);
}

TEST(Expectations, AbsoluteTimesAreANoteNeverTheVerdict) {
  // Both variants 30% slower than recorded, the speedup unchanged: as expected, with a note.
  ExpectationEntry entry = expected_interval(4.15, 4.27);
  entry.baseline_ms = 0.41234567 / 1.3;
  entry.optimized_ms = 0.098123456 / 1.3;
  const PairResult pair = recordable_pair("ch07", "transpose_padded", 4.15, 4.27);
  const ExpectationCheck check = check_against_expectation(pair, &entry, "h200");
  EXPECT_EQ(check.verdict, "as_expected");
  EXPECT_EQ(check.expected_baseline_ms, entry.baseline_ms);
  EXPECT_NE(check.detail.find("baseline +30% (412 µs vs 317 µs), optimized +30% (98.1 µs vs "
                              "75.5 µs); both variants are slower than recorded"),
            std::string::npos)
      << check.detail;

  // Within the threshold: the medians are stated, no warning.
  entry.baseline_ms = 0.41234567 * 1.01;
  entry.optimized_ms = 0.098123456;
  const ExpectationCheck steady = check_against_expectation(pair, &entry, "h200");
  EXPECT_EQ(steady.detail.find("both variants"), std::string::npos) << steady.detail;
  EXPECT_NE(steady.detail.find("optimized +0.0%"), std::string::npos) << steady.detail;
}

// A pair measured against its library reference: its fraction, as the worker records it.
PairResult with_fraction(PairResult pair, double low, double high) {
  LibraryComparison library;
  library.library = "cuBLASLt";
  library.reference_variant = "optimized_x_cublaslt";
  library.role = LibraryRole::timed;
  library.fraction = Speedup{(low + high) / 2, low, high, 0.95, 2000, "slower"};
  pair.library = library;
  return pair;
}

ExpectationEntry with_recorded_fraction(ExpectationEntry entry, double low, double high) {
  entry.library = "cuBLASLt";
  entry.library_fraction = (low + high) / 2;
  entry.library_fraction_ci_low = low;
  entry.library_fraction_ci_high = high;
  return entry;
}

// The fraction of the library is judged by the speedup's rule and moves the verdict: a regressed
// fraction makes the target a regression whatever its speedup did; an improved one makes an
// as-expected speedup an improvement.
TEST(Expectations, TheLibraryFractionTakesPartInTheVerdict) {
  const ExpectationEntry recorded =
      with_recorded_fraction(expected_interval(3.15, 3.30), 0.90, 0.92);
  const auto verdict_of = [&](double low, double high) {
    return check_against_expectation(
        with_fraction(recordable_pair("ch10", "gemm_wgmma", 3.15, 3.30), low, high), &recorded,
        "h200");
  };
  const ExpectationCheck regressed = verdict_of(0.70, 0.72);
  EXPECT_EQ(regressed.verdict, "regression");
  EXPECT_NE(regressed.detail.find("fraction of the library regressed: measured 71.0% [70.0%, "
                                  "72.0%] of cuBLASLt, below the expected 91.0% [90.0%, 92.0%] "
                                  "of cuBLASLt by more than 5%"),
            std::string::npos)
      << regressed.detail;
  EXPECT_EQ(regressed.expected_library_fraction, 0.91);
  EXPECT_EQ(regressed.expected_library_fraction_ci_low, 0.90);
  EXPECT_EQ(regressed.expected_library_fraction_ci_high, 0.92);
  EXPECT_EQ(verdict_of(0.99, 1.01).verdict, "improvement");
  EXPECT_EQ(verdict_of(0.88, 0.90).verdict, "as_expected");  // within the 5% threshold

  // A regressed speedup stays a regression when the fraction improved.
  const ExpectationCheck mixed = check_against_expectation(
      with_fraction(recordable_pair("ch10", "gemm_wgmma", 2.5, 2.9), 0.99, 1.01), &recorded,
      "h200");
  EXPECT_EQ(mixed.verdict, "regression");

  // No fraction this run (the reference could not run here): judged by the speedup, and said.
  const ExpectationCheck missing = check_against_expectation(
      recordable_pair("ch10", "gemm_wgmma", 3.15, 3.30), &recorded, "h200");
  EXPECT_EQ(missing.verdict, "as_expected");
  EXPECT_NE(missing.detail.find("fraction of cuBLASLt: none measured in this run"),
            std::string::npos)
      << missing.detail;

  // An entry without a fraction ignores the run's.
  const ExpectationEntry plain = expected_interval(3.15, 3.30);
  const ExpectationCheck ignored = check_against_expectation(
      with_fraction(recordable_pair("ch10", "gemm_wgmma", 3.15, 3.30), 0.1, 0.2), &plain, "h200");
  EXPECT_EQ(ignored.verdict, "as_expected");
  EXPECT_FALSE(ignored.expected_library_fraction.has_value());
}

TEST(Expectations, TheFractionIsRecordedAndReadBack) {
  const ScopedTempDir dir("expectations_fraction");
  const std::filesystem::path ch10 = dir.path() / "ch10_tensor_cores";
  RunResults results;
  results.pairs = {
      with_fraction(recordable_pair("ch10", "gemm_wgmma", 3.1, 3.3), 0.6012345, 0.6234567),
      recordable_pair("ch10", "tile_transpose_tma", 1.9, 2.1)};
  EXPECT_EQ(update_expectations(results, {{"ch10", ch10}}, "h200", kProvenance), 2);
  const auto loaded = load_expectations(expectations_file(ch10, "h200"));
  const ExpectationEntry& gemm = loaded.at("ch10:gemm_wgmma");
  EXPECT_EQ(gemm.library, "cuBLASLt");
  EXPECT_EQ(gemm.library_fraction, 0.6123);  // 4 significant digits, like every recorded number
  EXPECT_EQ(gemm.library_fraction_ci_low, 0.6012);
  EXPECT_EQ(gemm.library_fraction_ci_high, 0.6235);
  EXPECT_FALSE(loaded.at("ch10:tile_transpose_tma").library_fraction.has_value());
  const std::string text = read_file(expectations_file(ch10, "h200"));
  EXPECT_EQ(text.find("library", text.find("ch10:tile_transpose_tma")), std::string::npos) << text;
}

}  // namespace
}  // namespace aisp
