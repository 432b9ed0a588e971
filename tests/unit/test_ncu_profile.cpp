// The Nsight Compute pass without a GPU: the CSV parser on text shaped like `ncu --import
// --csv --page raw --print-units base` output, the per-kernel summary, the command lines, finding
// ncu, ncu's error messages, the NVTX range names, the JSON round trip and the report text.
#include <stdlib.h>
#include <sys/stat.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "measure/nvtx_ranges.hpp"
#include "profile/ncu_command.hpp"
#include "profile/ncu_csv.hpp"
#include "profile/pair_profiler.hpp"
#include "profile/profile_set.hpp"
#include "report/html_report.hpp"
#include "report/markdown_summary.hpp"
#include "report/profile_format.hpp"
#include "results/results_json.hpp"
#include "run/run_directory.hpp"
#include "system/shell_words.hpp"
#include "temp_files.hpp"

namespace aisp {
namespace {

using test::ScopedTempDir;
using test::write_file;

// What a profiled worker leaves in the output: ncu's messages, the application's own lines, the
// header, the unit row, one row per launch (two kernels, one launched twice), a warning in the
// middle, a value ncu could not collect, thousands separators and commas inside quotes.
constexpr const char* kRawCsv =
    "==PROF== Connected to process 4242 (/build/aisp)\n"
    "worker: starting ch07:copy_coalesced\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"dram__throughput.avg.pct_of_peak_sustained_"
    "elapsed\",\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"gpu__time_duration.sum\",\"launch__grid_size\",\"launch__registers_per_thread\","
    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__warps_active.avg.pct_of_peak_"
    "sustained_active\",\"device__attribute_max_warps_per_multiprocessor\","
    "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"%\",\"nsecond\",\"\","
    "\"register/thread\",\"%\",\"%\",\"warp\",\"ratio\"\n"
    "\"0\",\"4242\",\"aisp\",\"127.0.0.1\",\"copy_strided\",\"1\",\"13\",\"(256, 1, 1)\","
    "\"(1048576, 1, 1)\",\"0\",\"9.0\",\"91.5\",\"93.25\",\"531,200\",\"1,048,576\",\"16\","
    "\"12.5\",\"85.1\",\"64\",\"3.5\"\n"
    "==WARNING== Backing up device memory in system memory. Kernel replay might be slow.\n"
    "\"1\",\"4242\",\"aisp\",\"127.0.0.1\",\"copy_strided\",\"1\",\"13\",\"(256, 1, 1)\","
    "\"(1048576, 1, 1)\",\"0\",\"9.0\",\"91.7\",\"93.75\",\"533,000\",\"1,048,576\",\"16\","
    "\"12.7\",\"n/a\",\"64\",\"4.5\"\n"
    "\"2\",\"4242\",\"aisp\",\"127.0.0.1\",\"finish \"\"pass\"\", tail\",\"1\",\"13\","
    "\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"0.1\",\"0.2\",\"2,100\",\"1\",\"8\",\"0.01\","
    "\"3.1\",\"64\",\"1\"\n"
    "==PROF== Disconnected from process 4242\n";

ProfileSet minimal_set() { return ProfileSet::minimal; }

TEST(NcuCsv, ParsesHeaderUnitsAndRowsAmidMessages) {
  const std::optional<NcuRawTable> table = parse_ncu_raw_csv(kRawCsv);
  ASSERT_TRUE(table.has_value());
  ASSERT_EQ(table->columns.size(), 20u);
  EXPECT_EQ(table->columns[4], "Kernel Name");
  ASSERT_EQ(table->units.size(), 20u);
  EXPECT_EQ(table->units[13], "nsecond");
  ASSERT_EQ(table->rows.size(), 3u);
  EXPECT_EQ(table->rows[0][7], "(256, 1, 1)");
  EXPECT_EQ(table->rows[0][13], "531,200");
  EXPECT_EQ(table->rows[2][4], "finish \"pass\", tail");
  EXPECT_EQ(table->column("gpu__time_duration.sum"), 13u);
  EXPECT_FALSE(table->column("no_such_metric").has_value());
}

TEST(NcuCsv, NoHeaderIsNoTable) {
  EXPECT_FALSE(parse_ncu_raw_csv("").has_value());
  EXPECT_FALSE(
      parse_ncu_raw_csv("==PROF== Connected\n==WARNING== No kernels were profiled.\n").has_value());
}

TEST(NcuCsv, HeaderWithoutRowsIsAnEmptyTable) {
  const auto table = parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                                       "\"\",\"\",\"nsecond\"\n");
  ASSERT_TRUE(table.has_value());
  EXPECT_TRUE(table->rows.empty());
  EXPECT_EQ(table->units[2], "nsecond");
}

TEST(NcuCsv, CarriageReturnsAndMissingUnitRow) {
  const auto table = parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"x\"\r\n\"0\",\"k\",\"1\"\r\n");
  ASSERT_TRUE(table.has_value());
  EXPECT_TRUE(table->units.empty());
  ASSERT_EQ(table->rows.size(), 1u);
  EXPECT_EQ(table->rows[0][2], "1");
}

TEST(NcuCsv, Numbers) {
  EXPECT_EQ(parse_ncu_number("1,048,576"), 1048576.0);
  EXPECT_EQ(parse_ncu_number("87.5"), 87.5);
  EXPECT_EQ(parse_ncu_number("4.0e-05"), 4.0e-05);
  EXPECT_EQ(parse_ncu_number("-3"), -3.0);
  EXPECT_FALSE(parse_ncu_number("n/a").has_value());
  EXPECT_FALSE(parse_ncu_number("").has_value());
  EXPECT_FALSE(parse_ncu_number("(256, 1, 1)").has_value());
  EXPECT_FALSE(parse_ncu_number("inf").has_value());
}

TEST(NcuCsv, UnitsNormalizeToNanosecondsAndBytes) {
  EXPECT_EQ(normalize_ncu_value(531.2, "usecond"), (std::pair<double, std::string>{531200, "ns"}));
  EXPECT_EQ(normalize_ncu_value(2, "msecond"), (std::pair<double, std::string>{2e6, "ns"}));
  EXPECT_EQ(normalize_ncu_value(4e-5, "second").second, "ns");
  EXPECT_NEAR(normalize_ncu_value(4e-5, "second").first, 40000, 1e-6);
  EXPECT_EQ(normalize_ncu_value(7, "nsecond"), (std::pair<double, std::string>{7, "ns"}));
  EXPECT_EQ(normalize_ncu_value(2, "Gbyte"), (std::pair<double, std::string>{2e9, "byte"}));
  EXPECT_EQ(normalize_ncu_value(93, "%"), (std::pair<double, std::string>{93, "%"}));
  EXPECT_EQ(normalize_ncu_value(3, "Gbyte/second"),
            (std::pair<double, std::string>{3, "Gbyte/second"}));
}

const ProfileMetric* metric(const ProfiledKernel& kernel, std::string_view name) {
  return profile_format::find_metric(kernel, name);
}

TEST(NcuCsv, SummaryPerKernelMediansAndTotals) {
  const auto table = parse_ncu_raw_csv(kRawCsv);
  ASSERT_TRUE(table.has_value());
  const NcuKernelSummary summary = summarize_ncu_kernels(*table, ncu_metric_set(minimal_set()));
  EXPECT_EQ(summary.launches, 3);
  EXPECT_TRUE(summary.duration_complete);
  EXPECT_DOUBLE_EQ(summary.duration_ns, 531200 + 533000 + 2100);
  ASSERT_EQ(summary.kernels.size(), 2u);

  const ProfiledKernel& copy = summary.kernels[0];
  EXPECT_EQ(copy.name, "copy_strided");
  EXPECT_EQ(copy.launches, 2);
  EXPECT_EQ(copy.grid_size, "(1048576, 1, 1)");
  EXPECT_EQ(copy.block_size, "(256, 1, 1)");
  ASSERT_NE(metric(copy, "gpu__time_duration.sum"), nullptr);
  EXPECT_DOUBLE_EQ(metric(copy, "gpu__time_duration.sum")->median, 532100);
  EXPECT_EQ(metric(copy, "gpu__time_duration.sum")->unit, "ns");
  EXPECT_DOUBLE_EQ(metric(copy, "dram__throughput.avg.pct_of_peak_sustained_elapsed")->median,
                   91.6);
  // n/a in one launch: the median of the launches that have a value.
  EXPECT_DOUBLE_EQ(metric(copy, "sm__warps_active.avg.pct_of_peak_sustained_active")->median, 85.1);
  EXPECT_DOUBLE_EQ(metric(copy, "launch__grid_size")->median, 1048576);
  EXPECT_EQ(metric(copy, "launch__registers_per_thread")->unit, "register/thread");
  // Not in the set: neither requested nor matching a stored prefix.
  EXPECT_EQ(metric(copy, "device__attribute_max_warps_per_multiprocessor"), nullptr);
  EXPECT_EQ(
      metric(copy, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
      nullptr);
  // Not in the table: left out rather than stored empty.
  EXPECT_EQ(metric(copy, "launch__block_size"), nullptr);
  // Stored in the set's order.
  EXPECT_EQ(copy.metrics.front().name, "gpu__time_duration.sum");

  EXPECT_EQ(summary.kernels[1].name, "finish \"pass\", tail");
  EXPECT_EQ(summary.kernels[1].launches, 1);
}

TEST(NcuCsv, AnonymousNamespaceKernelsGetTheirCppName) {
  // As ncu 2025 (CUDA 13.0) printed ch01:launch_graph's kernel on the H200.
  EXPECT_EQ(readable_kernel_name("unnamed>::add_one(float *, int)"),
            "(anonymous namespace)::add_one(float *, int)");
  EXPECT_EQ(readable_kernel_name("void copy<<unnamed>::Tile>(float *)"),
            "void copy<(anonymous namespace)::Tile>(float *)");
  EXPECT_EQ(readable_kernel_name("copy_strided"), "copy_strided");
  EXPECT_EQ(readable_kernel_name(""), "");
}

TEST(NcuCsv, DeepSetStoresPrefixedColumns) {
  const auto table = parse_ncu_raw_csv(kRawCsv);
  ASSERT_TRUE(table.has_value());
  const NcuKernelSummary summary = summarize_ncu_kernels(*table, ncu_metric_set(ProfileSet::deep));
  const ProfileMetric* stall =
      metric(summary.kernels[0],
             "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
  ASSERT_NE(stall, nullptr);
  EXPECT_DOUBLE_EQ(stall->median, 4.0);
  EXPECT_EQ(stall->unit, "ratio");
}

TEST(NcuCsv, MissingDurationMakesTheTotalIncomplete) {
  const auto table = parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                                       "\"\",\"\",\"nsecond\"\n"
                                       "\"0\",\"k\",\"10\"\n"
                                       "\"1\",\"k\",\"n/a\"\n");
  ASSERT_TRUE(table.has_value());
  const NcuKernelSummary summary = summarize_ncu_kernels(*table, ncu_metric_set(minimal_set()));
  EXPECT_EQ(summary.launches, 2);
  EXPECT_FALSE(summary.duration_complete);
  EXPECT_DOUBLE_EQ(summary.kernels[0].metrics[0].median, 10);

  const auto no_duration = parse_ncu_raw_csv("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n");
  ASSERT_TRUE(no_duration.has_value());
  EXPECT_FALSE(
      summarize_ncu_kernels(*no_duration, ncu_metric_set(minimal_set())).duration_complete);
}

TEST(NcuOutput, ErrorLinesAndCounterPermission) {
  const std::string output =
      "==PROF== Connected to process 1 (/build/aisp)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
      "Performance Counters on the target device 0.\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
      "Performance Counters on the target device 0.\n"
      "==WARNING== No kernels were profiled.\n";
  const std::string summary = ncu_error_summary(output);
  EXPECT_EQ(summary.find("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"), 0u)
      << summary;
  EXPECT_EQ(summary.find("; ==ERROR=="), std::string::npos) << "duplicates are dropped";
  EXPECT_NE(summary.find("only administrators"), std::string::npos) << summary;
  EXPECT_TRUE(ncu_profiled_no_kernels(output));

  EXPECT_EQ(ncu_error_summary("==ERROR== one\n==ERROR== two\r\n"), "==ERROR== one; ==ERROR== two");
  EXPECT_EQ(ncu_error_summary("==PROF== fine\n"), "");
  EXPECT_FALSE(ncu_profiled_no_kernels("==PROF== Disconnected\n"));
}

TEST(NcuCommand, ProfileCommandLine) {
  NcuProfileCommand command;
  command.ncu = "/usr/local/cuda/bin/ncu";
  command.set = ProfileSet::minimal;
  command.nvtx_range = "aisp:sample ch07:copy_coalesced optimized_copy_coalesced";
  command.launch_limit = 500;
  command.report = "/run/profiles/ch07_copy_coalesced.optimized.ncu-rep";
  command.application = {"/build/aisp", "__worker", "--target", "ch07:copy_coalesced"};
  const std::vector<std::string> expected = {
      "/usr/local/cuda/bin/ncu",
      "--clock-control",
      "none",
      "--cache-control",
      "all",
      "--replay-mode",
      "kernel",
      "--target-processes",
      "all",
      "--nvtx",
      "--nvtx-include",
      "aisp:sample ch07:copy_coalesced optimized_copy_coalesced/",
      "--launch-count",
      "500",
      "--metrics",
      "gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
      "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
      "sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,"
      "launch__grid_size,launch__block_size",
      "--export",
      "/run/profiles/ch07_copy_coalesced.optimized.ncu-rep",
      "--force-overwrite",
      "/build/aisp",
      "__worker",
      "--target",
      "ch07:copy_coalesced",
  };
  EXPECT_EQ(ncu_profile_argv(command), expected);
  EXPECT_NE(shell_join(ncu_profile_argv(command))
                .find("--nvtx-include 'aisp:sample ch07:copy_coalesced optimized_copy_coalesced/'"),
            std::string::npos);
}

TEST(NcuCommand, DeepAddsSectionsAndMetricsAndNeverLocksClocks) {
  NcuProfileCommand command;
  command.ncu = "ncu";
  command.set = ProfileSet::deep;
  command.nvtx_range = "r";
  command.report = "out.ncu-rep";
  command.application = {"app"};
  const std::vector<std::string> argv = ncu_profile_argv(command);
  const std::string line = shell_join(argv);
  EXPECT_NE(line.find("--clock-control none"), std::string::npos);
  EXPECT_EQ(line.find("--clock-control base"), std::string::npos);
  for (const char* section : {"SpeedOfLight", "MemoryWorkloadAnalysis", "Occupancy", "LaunchStats",
                              "SchedulerStats", "WarpStateStats"}) {
    EXPECT_NE(line.find(std::string("--section ") + section), std::string::npos) << section;
  }
  EXPECT_NE(line.find("dram__bytes_read.sum"), std::string::npos);
  EXPECT_NE(line.find("lts__t_sector_hit_rate.pct"), std::string::npos);
  EXPECT_EQ(argv.back(), "app");
  // The deep set holds every minimal metric, in the same order first.
  const NcuMetricSet& minimal = ncu_metric_set(ProfileSet::minimal);
  const NcuMetricSet& deep = ncu_metric_set(ProfileSet::deep);
  ASSERT_GT(deep.metrics.size(), minimal.metrics.size());
  EXPECT_TRUE(std::equal(minimal.metrics.begin(), minimal.metrics.end(), deep.metrics.begin()));
  EXPECT_TRUE(minimal.sections.empty());
}

TEST(NcuCommand, ImportCommandLine) {
  EXPECT_EQ(ncu_import_argv("ncu", "/run/profiles/x.baseline.ncu-rep"),
            (std::vector<std::string>{"ncu", "--import", "/run/profiles/x.baseline.ncu-rep",
                                      "--csv", "--page", "raw", "--print-units", "base"}));
}

TEST(NcuCommand, ShellJoinQuotesWhatNeedsIt) {
  EXPECT_EQ(shell_join({"ncu", "--metrics", "a.b,c", "it's here", ""}),
            "ncu --metrics a.b,c 'it'\\''s here' ''");
  EXPECT_EQ(shell_join({"--settings-json", "{\"seed\":1}"}), "--settings-json '{\"seed\":1}'");
}

TEST(NcuLocation, OverrideMustBeExecutable) {
  const NcuLocation missing = locate_ncu("/nonexistent/ncu", "/usr/bin");
  EXPECT_FALSE(missing.found());
  EXPECT_NE(missing.reason.find("AISP_NCU=/nonexistent/ncu"), std::string::npos) << missing.reason;

  ScopedTempDir dir("ncu_location");
  const auto fake = dir.path() / "my-ncu";
  write_file(fake, "#!/bin/sh\nexit 0\n");
  EXPECT_FALSE(locate_ncu(fake.c_str(), nullptr).found()) << "not executable yet";
  ::chmod(fake.c_str(), 0755);
  EXPECT_EQ(locate_ncu(fake.c_str(), nullptr).path, fake.string());
  // A directory is not an executable file.
  EXPECT_FALSE(locate_ncu(dir.path().c_str(), nullptr).found());
}

TEST(NcuLocation, SearchesPathThenTheCudaFolder) {
  ScopedTempDir dir("ncu_path");
  const auto bin = dir.path() / "bin";
  write_file(bin / "ncu", "#!/bin/sh\nexit 0\n");
  ::chmod((bin / "ncu").c_str(), 0755);
  const std::string path = "/nonexistent::" + bin.string() + ":/usr/bin";
  EXPECT_EQ(locate_ncu(nullptr, path.c_str()).path, (bin / "ncu").string());

  const NcuLocation fallback = locate_ncu(nullptr, "/nonexistent");
  if (std::filesystem::exists("/usr/local/cuda/bin/ncu")) {
    EXPECT_EQ(fallback.path, "/usr/local/cuda/bin/ncu");
  } else {
    EXPECT_FALSE(fallback.found());
    EXPECT_NE(fallback.reason.find("not found in PATH nor at /usr/local/cuda/bin/ncu"),
              std::string::npos)
        << fallback.reason;
  }
}

TEST(NvtxRanges, NamesCarryTargetAndVariantWithoutFilterOperators) {
  EXPECT_EQ(nvtx_label("ch07:transpose_padded", "optimized_transpose_padded"),
            "ch07:transpose_padded optimized_transpose_padded");
  EXPECT_EQ(nvtx_label("labs/attention:flash", "optimized_flash"),
            "labs_attention:flash optimized_flash");
  EXPECT_EQ(nvtx_label("a[b]+c*d@e\\f", "v"), "a_b__c_d_e_f v");
  EXPECT_EQ(nvtx_range_name(kNvtxSample, "ch07:x optimized_x"), "aisp:sample ch07:x optimized_x");
  EXPECT_EQ(nvtx_range_name(kNvtxWarmup, ""), "aisp:warmup");
}

TEST(ProfileSet, FlagValues) {
  EXPECT_EQ(parse_profile_flag("none"), ProfileSet::none);
  EXPECT_EQ(parse_profile_flag("ncu"), ProfileSet::minimal);
  EXPECT_EQ(parse_profile_flag("deep"), ProfileSet::deep);
  EXPECT_FALSE(parse_profile_flag("minimal").has_value());
  EXPECT_FALSE(parse_profile_flag("NCU").has_value());
  EXPECT_EQ(profile_set_name(ProfileSet::minimal), "minimal");
  EXPECT_EQ(profile_flag_name(ProfileSet::deep), "deep");
}

TEST(ProfilePass, SettingsAreAFewPerCallSamples) {
  MeasurementSettings run;
  run.pair_timeout_s = 77;
  run.seed = 5;
  const MeasurementSettings profiled = profile_pass_settings(run);
  EXPECT_EQ(profiled.warmup_runs, kProfileWarmupRuns);
  EXPECT_EQ(profiled.fixed_samples, kProfileSamples);
  EXPECT_EQ(profiled.graph_below_us, 0);
  EXPECT_EQ(profiled.pair_timeout_s, 77);
  EXPECT_EQ(profiled.seed, 5u);
}

PairProfile collected_profile() {
  PairProfile profile;
  profile.set = "minimal";
  profile.status = ProfileStatus::failed;
  profile.reason = "optimized: ==ERROR== ERR_NVGPUCTRPERM";
  profile.warmup_runs = 1;
  profile.samples = 3;
  VariantProfile baseline;
  baseline.variant = "baseline_copy_coalesced";
  baseline.status = ProfileStatus::collected;
  baseline.command = "ncu --clock-control none ...";
  baseline.report = "profiles/ch07_copy_coalesced.baseline.ncu-rep";
  baseline.runs = 3;
  baseline.launches = 4;
  baseline.duration_ms_per_run = 0.5371234567;
  ProfiledKernel small{
      "finish", 1, "(1, 1, 1)", "(32, 1, 1)", {{"gpu__time_duration.sum", "ns", 2100}}};
  ProfiledKernel big{
      "copy_strided",
      3,
      "(1048576, 1, 1)",
      "(256, 1, 1)",
      {{"gpu__time_duration.sum", "ns", 532100},
       {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 12.6},
       {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%", 93.5},
       {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", 91.6},
       {"sm__warps_active.avg.pct_of_peak_sustained_active", "%", 85.1},
       {"dram__bytes_read.sum", "byte", 2.147e9}}};
  baseline.kernels = {small, big};
  profile.baseline = baseline;
  VariantProfile optimized;
  optimized.variant = "optimized_copy_coalesced";
  optimized.status = ProfileStatus::failed;
  optimized.reason = "==ERROR== ERR_NVGPUCTRPERM";
  optimized.duration_ms_per_run = std::numeric_limits<double>::quiet_NaN();
  profile.optimized = optimized;
  return profile;
}

TEST(ProfileJson, RoundTripsThroughAPairResult) {
  PairResult result;
  result.target = "ch07:copy_coalesced";
  result.status = PairStatus::passed;
  result.profile = collected_profile();
  const nlohmann::json json = to_json(result);
  ASSERT_TRUE(json.contains("profile"));
  EXPECT_EQ(json["profile"]["variants"]["baseline"]["kernels"][1]["metrics"][0]["median"], 532100);
  EXPECT_TRUE(json["profile"]["variants"]["optimized"]["duration_ms_per_run"].is_null());
  const PairResult back = pair_result_from_json(json);
  ASSERT_TRUE(back.profile.has_value());
  const PairProfile& p = *back.profile;
  EXPECT_EQ(p.tool, "ncu");
  EXPECT_EQ(p.set, "minimal");
  EXPECT_EQ(p.status, ProfileStatus::failed);
  EXPECT_EQ(p.reason, "optimized: ==ERROR== ERR_NVGPUCTRPERM");
  EXPECT_EQ(p.samples, 3);
  ASSERT_TRUE(p.baseline && p.optimized);
  EXPECT_EQ(p.baseline->duration_ms_per_run, 0.5371234567);
  EXPECT_EQ(p.baseline->report, "profiles/ch07_copy_coalesced.baseline.ncu-rep");
  ASSERT_EQ(p.baseline->kernels.size(), 2u);
  EXPECT_EQ(p.baseline->kernels[1].block_size, "(256, 1, 1)");
  EXPECT_EQ(p.baseline->kernels[1].metrics[5].unit, "byte");
  EXPECT_TRUE(std::isnan(p.optimized->duration_ms_per_run));
  EXPECT_EQ(to_json(back), json);
}

TEST(ProfileJson, AbsentWhenNotProfiledAndErrorsNameThePath) {
  PairResult result;
  result.target = "ch07:x";
  nlohmann::json json = to_json(result);
  EXPECT_FALSE(json.contains("profile"));
  EXPECT_FALSE(pair_result_from_json(json).profile.has_value());

  result.profile = collected_profile();
  json = to_json(result);
  json["profile"]["variants"]["baseline"]["status"] = "great";
  try {
    pair_result_from_json(json);
    FAIL() << "a bad status was accepted";
  } catch (const ResultsFormatError& error) {
    EXPECT_NE(std::string(error.what()).find("profile.variants.baseline.status"), std::string::npos)
        << error.what();
  }
}

TEST(ProfileFormat, LinesAndMarkdown) {
  const PairProfile profile = collected_profile();
  EXPECT_EQ(profile_format::dominant_kernel(*profile.baseline)->name, "copy_strided");
  const std::string line = profile_format::format_profile_line(profile);
  EXPECT_NE(line.find("profile (ncu minimal) failed: baseline 537 µs per run, 2 kernels; "
                      "copy_strided: SM 13%, memory 94%, DRAM 92%, occupancy 85%"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("optimized: ==ERROR== ERR_NVGPUCTRPERM"), std::string::npos) << line;

  RunResults results;
  PairResult pair;
  pair.target = "ch07:copy_coalesced";
  pair.profile = profile;
  PairResult cpu;
  cpu.target = "ch90:affine";
  cpu.profile = PairProfile{};
  cpu.profile->set = "minimal";
  cpu.profile->reason = "CPU pair: Nsight Compute profiles GPU kernels, and this pair runs none";
  results.pairs = {pair, cpu, PairResult{}};
  const std::string markdown = profile_format::render_profile_markdown(results);
  EXPECT_EQ(markdown.find("## Profiles (Nsight Compute, set minimal)"), 0u) << markdown;
  EXPECT_NE(markdown.find("| ch07:copy_coalesced | baseline | 537 µs | 2 (4 launches) | "
                          "copy_strided | 13% | 94% | 92% | 85% |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("- **ch90:affine** profile skipped: CPU pair"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("- **ch07:copy_coalesced** profile failed: optimized:"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(profile_format::render_profile_markdown(RunResults{}), "");

  const ProfileMetric bytes{"dram__bytes_read.sum", "byte", 2.147e9};
  EXPECT_EQ(profile_format::format_metric_value(bytes), "2.15 GB");
  const ProfileMetric count{"launch__grid_size", "", 1048576};
  EXPECT_EQ(profile_format::format_metric_value(count), "1048576");
}

TEST(ProfileFormat, SummaryAndHtmlShowTheProfile) {
  RunResults results;
  results.run_id = "r1";
  results.complete = true;
  PairResult pair;
  pair.target = "ch07:copy_coalesced";
  pair.status = PairStatus::passed;
  pair.verification.passed = true;
  pair.profile = collected_profile();
  pair.profile->baseline->kernels[0].name = "finish<a&b>";
  results.pairs = {pair};

  const std::string markdown = render_markdown_summary(results, nlohmann::json::object());
  const std::size_t failures = markdown.find("## Failures and skips");
  const std::size_t profiles = markdown.find("## Profiles (Nsight Compute, set minimal)");
  ASSERT_NE(profiles, std::string::npos) << markdown;
  EXPECT_LT(failures, profiles) << markdown;
  EXPECT_EQ(markdown.back(), '\n');
  EXPECT_NE(markdown.substr(markdown.size() - 2), "\n\n");

  const std::string html = render_html_report(results, nlohmann::json::object(), {});
  EXPECT_NE(html.find("Nsight Compute profile (minimal set): failed"), std::string::npos);
  EXPECT_NE(html.find("<code>copy_strided</code>"), std::string::npos);
  EXPECT_NE(html.find("(1048576, 1, 1) × (256, 1, 1)"), std::string::npos);
  EXPECT_NE(html.find("finish&lt;a&amp;b&gt;"), std::string::npos) << "kernel names are escaped";
  EXPECT_EQ(html.find("finish<a&b>"), std::string::npos);
  EXPECT_NE(html.find("<code>dram__bytes_read.sum</code> 2.15 GB"), std::string::npos);
  EXPECT_NE(html.find("failed: ==ERROR== ERR_NVGPUCTRPERM"), std::string::npos);

  results.pairs[0].profile.reset();
  EXPECT_EQ(render_markdown_summary(results, nlohmann::json::object()).find("## Profiles"),
            std::string::npos);
  EXPECT_EQ(render_html_report(results, nlohmann::json::object(), {}).find("Nsight Compute"),
            std::string::npos);
}

// The whole pass, orchestration included, with a stand-in for ncu (a shell script): it records its
// arguments, answers for the worker on fd 3 as a profiled worker would, writes a report, and on
// --import prints kRawCsv. What a GPU machine adds is only the real ncu and kernels.
class FakeNcu {
 public:
  // `behaviour`: "ok" (report and CSV), "mute" (the same, but no result line on fd 3), "denied"
  // (ERR_NVGPUCTRPERM, no report), "none" (no kernel profiled, no report).
  FakeNcu(const ScopedTempDir& dir, const std::string& behaviour) : dir_(dir.path()) {
    PairResult worker;
    worker.target = "ch07:copy_coalesced";
    worker.status = PairStatus::passed;
    VariantMeasurement samples;
    samples.variant = "baseline_copy_coalesced";
    samples.stats.count = 3;
    samples.runs_per_sample = 1;
    worker.baseline = samples;
    samples.variant = "optimized_copy_coalesced";
    worker.optimized = samples;
    write_file(dir_ / "result.jsonl",
               nlohmann::json{{"type", "result"}, {"result", to_json(worker)}}.dump() + "\n");
    write_file(dir_ / "raw.csv", kRawCsv);
    const std::string d = dir_.string();
    std::string script = "#!/bin/bash\n"
                         "if [ \"$1\" = --import ]; then cat '" +
                         d +
                         "/raw.csv'; exit 0; fi\n"
                         "printf '%s\\n' \"$@\" > '" +
                         d +
                         "/args.txt'\n"
                         "echo '==PROF== Connected to process 1'\n"
                         "echo '{\"type\":\"phase\",\"phase\":\"warmup\"}' >&3\n";
    if (behaviour != "mute") {
      script += "cat '" + d + "/result.jsonl' >&3\n";
    }
    if (behaviour == "ok" || behaviour == "mute") {
      script += "while [ $# -gt 0 ]; do [ \"$1\" = --export ] && : > \"$2\"; shift; done\n";
    } else if (behaviour == "denied") {
      script += "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
                "NVIDIA GPU Performance Counters on the target device 0.'\n";
    } else {
      script += "echo '==WARNING== No kernels were profiled.'\n";
    }
    write_file(dir_ / "ncu", script);
    ::chmod((dir_ / "ncu").c_str(), 0755);
    ::setenv("AISP_NCU", (dir_ / "ncu").c_str(), 1);
  }
  ~FakeNcu() { ::unsetenv("AISP_NCU"); }
  FakeNcu(const FakeNcu&) = delete;
  FakeNcu& operator=(const FakeNcu&) = delete;
  std::string args() const { return test::read_file(dir_ / "args.txt"); }

 private:
  std::filesystem::path dir_;
};

struct ProfiledPair {
  VariantInfo baseline, optimized;
  PairInfo pair;
  PairResult measured;
  ProfiledPair() {
    baseline.stem = "baseline_copy_coalesced";
    optimized.stem = "optimized_copy_coalesced";
    pair.target = "ch07:copy_coalesced";
    pair.chapter = "ch07";
    pair.pair = "copy_coalesced";
    pair.baseline = &baseline;
    pair.optimized = &optimized;
    measured.target = pair.target;
    measured.status = PairStatus::passed;
    VariantMeasurement timed;
    timed.method = TimingMethod::cuda_events;
    measured.baseline = timed;
    measured.optimized = timed;
  }
};

PairProfile profile_with(const ScopedTempDir& dir, const std::string& behaviour) {
  const FakeNcu ncu(dir, behaviour);
  const ProfiledPair subject;
  MeasurementSettings settings;
  settings.pair_timeout_s = 30;
  const PairProfiler profiler(ProfileSet::minimal, "/build/aisp", settings);
  EXPECT_NE(profiler.describe().find((dir.path() / "ncu").string()), std::string::npos);
  const RunDirectory run(dir.path() / "artifacts", "run1");
  const std::atomic<bool> interrupt{false};
  std::vector<std::string> phases;
  PairProfile profile = profiler.profile(subject.pair, subject.measured, run.path(), interrupt,
                                         [&](const std::string& p) { phases.push_back(p); });
  EXPECT_NE(std::find(phases.begin(), phases.end(), "ncu baseline: warmup"), phases.end());
  if (behaviour == "ok") {
    const std::string args = ncu.args();
    EXPECT_NE(args.find("--clock-control\nnone\n"), std::string::npos) << args;
    EXPECT_NE(args.find("--nvtx-include\naisp:sample ch07:copy_coalesced "
                        "optimized_copy_coalesced/\n"),
              std::string::npos)
        << args;
    EXPECT_NE(args.find("/build/aisp\n__worker\n--target\nch07:copy_coalesced\n"),
              std::string::npos)
        << args;
    EXPECT_NE(args.find("--profile-variant\noptimized\n"), std::string::npos) << args;
    EXPECT_NE(args.find("\"fixed_samples\":" + std::to_string(kProfileSamples)), std::string::npos) << args;
  }
  return profile;
}

TEST(PairProfilerWithFakeNcu, CollectsBothVariants) {
  ScopedTempDir dir("fake_ncu_ok");
  const PairProfile profile = profile_with(dir, "ok");
  EXPECT_EQ(profile.status, ProfileStatus::collected) << profile.reason;
  ASSERT_TRUE(profile.baseline && profile.optimized);
  const VariantProfile& v = *profile.optimized;
  EXPECT_EQ(v.status, ProfileStatus::collected) << v.reason;
  EXPECT_EQ(v.variant, "optimized_copy_coalesced");
  EXPECT_EQ(v.report, "profiles/ch07_copy_coalesced.optimized.ncu-rep");
  EXPECT_EQ(v.runs, 3);
  EXPECT_EQ(v.launches, 3);
  EXPECT_DOUBLE_EQ(v.duration_ms_per_run, (531200 + 533000 + 2100) / 1e6 / 3);
  ASSERT_EQ(v.kernels.size(), 2u);
  EXPECT_EQ(v.kernels[0].name, "copy_strided");
  EXPECT_NE(v.command.find("--clock-control none"), std::string::npos);
  const auto run = dir.path() / "artifacts" / "runs" / "run1";
  EXPECT_TRUE(std::filesystem::exists(run / "profiles/ch07_copy_coalesced.baseline.ncu-rep"));
  EXPECT_EQ(test::read_file(run / "profiles/ch07_copy_coalesced.baseline.csv"), kRawCsv);
  EXPECT_NE(test::read_file(run / "logs/ch07_copy_coalesced.profile-baseline.log")
                .find("==PROF== Connected"),
            std::string::npos);
}

TEST(PairProfilerWithFakeNcu, CounterPermissionFailsWithNcusReason) {
  ScopedTempDir dir("fake_ncu_denied");
  const PairProfile profile = profile_with(dir, "denied");
  EXPECT_EQ(profile.status, ProfileStatus::failed);
  EXPECT_EQ(profile.reason.find("baseline: ==ERROR== ERR_NVGPUCTRPERM"), 0u) << profile.reason;
  EXPECT_NE(profile.reason.find("optimized: ==ERROR== ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_NE(profile.reason.find("(log: logs/ch07_copy_coalesced.profile-optimized.log)"),
            std::string::npos)
      << profile.reason;
  EXPECT_TRUE(profile.optimized->report.empty());
}

TEST(PairProfilerWithFakeNcu, NoKernelIsACollectedProfileWithANote) {
  ScopedTempDir dir("fake_ncu_none");
  const PairProfile profile = profile_with(dir, "none");
  EXPECT_EQ(profile.status, ProfileStatus::collected) << profile.reason;
  EXPECT_TRUE(profile.baseline->kernels.empty());
  EXPECT_EQ(profile.baseline->duration_ms_per_run, 0);
  EXPECT_NE(profile.baseline->reason.find("no kernel ran inside the profiled samples"),
            std::string::npos);
}

TEST(PairProfilerWithFakeNcu, AResultLostOnTheWayStillReadsTheReport) {
  ScopedTempDir dir("fake_ncu_mute");
  const PairProfile profile = profile_with(dir, "mute");
  EXPECT_EQ(profile.status, ProfileStatus::collected) << profile.reason;
  EXPECT_EQ(profile.baseline->runs, kProfileSamples);
  EXPECT_EQ(profile.baseline->kernels.size(), 2u);
  EXPECT_NE(profile.baseline->reason.find("did not come back through ncu"), std::string::npos);
}

TEST(PairProfilerWithFakeNcu, SkipsWithoutCallingNcu) {
  ScopedTempDir dir("fake_ncu_skip");
  const FakeNcu ncu(dir, "ok");
  ProfiledPair subject;
  const PairProfiler profiler(ProfileSet::deep, "/build/aisp", MeasurementSettings{});
  const RunDirectory run(dir.path() / "artifacts", "run1");
  const std::atomic<bool> interrupt{false};
  subject.measured.baseline->method = TimingMethod::host_clock;
  PairProfile profile =
      profiler.profile(subject.pair, subject.measured, run.path(), interrupt, nullptr);
  EXPECT_EQ(profile.status, ProfileStatus::skipped);
  EXPECT_EQ(profile.set, "deep");
  EXPECT_EQ(profile.reason.find("CPU pair"), 0u);
  subject.measured.optimized.reset();
  subject.measured.status = PairStatus::failed;
  profile = profiler.profile(subject.pair, subject.measured, run.path(), interrupt, nullptr);
  EXPECT_EQ(profile.reason, "not profiled: the pair was not timed (status failed)");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "args.txt")) << "ncu ran";
}

}  // namespace
}  // namespace aisp
