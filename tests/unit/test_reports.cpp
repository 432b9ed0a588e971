// The human-readable printers against golden text, and their formatting rules one by one.
#include <algorithm>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "report/csv_export.hpp"
#include "report/markdown_summary.hpp"
#include "report/precision_format.hpp"
#include "report/report_format.hpp"
#include "report/text_summary.hpp"

namespace aisp {
namespace {

VariantMeasurement measured(const std::string& variant, double median_ms, double mean_ms,
                            double p05_ms, double p95_ms, double noise) {
  VariantMeasurement measurement;
  measurement.variant = variant;
  measurement.stats.count = 40;
  measurement.stats.median = median_ms;
  measurement.stats.mean = mean_ms;
  measurement.stats.p05 = p05_ms;
  measurement.stats.p95 = p95_ms;
  measurement.stats.relative_noise = noise;
  measurement.converged = true;
  return measurement;
}

Verification passed_checks() {
  Verification verification;
  verification.passed = true;
  verification.checks = {{"signatures_equal", true, ""},
                         {"outputs_written", true, ""},
                         {"within_tolerance", true, "max |diff| 0"}};
  return verification;
}

PairResult transpose_passed() {
  PairResult pair;
  pair.target = "ch07:transpose_padded";
  pair.chapter = "ch07";
  pair.pair = "transpose";
  pair.status = PairStatus::passed;
  pair.bytes = 134217728;
  pair.baseline = measured("baseline_transpose", 0.412, 0.4151, 0.4093, 0.4302, 0.004);
  pair.optimized = measured("optimized_transpose_padded", 0.0981, 0.0983, 0.0975, 0.0992, 0.0031);
  pair.optimized->method = TimingMethod::graph_replay;
  pair.speedup = Speedup{4.2023, 4.1511, 4.2677, 0.95, 2000, "faster"};
  Roofline roofline;
  roofline.achieved_gbps = 1368.2;
  roofline.fraction = 0.8812;
  roofline.bound = "memory";
  roofline.ceiling = "hbm_bandwidth";
  roofline.ceiling_value = 4275;
  roofline.ceiling_unit = "GB/s";
  pair.roofline = roofline;
  pair.verification = passed_checks();
  pair.gpu_before.sm_clock_mhz = 1980;
  pair.gpu_after.sm_clock_mhz = 1755;
  return pair;
}

PairResult gemm_no_difference() {
  PairResult pair;
  pair.target = "ch10:gemm_tiled";
  pair.chapter = "ch10";
  pair.pair = "gemm";
  pair.status = PairStatus::passed;
  pair.flops = 1.37e11;
  pair.baseline = measured("baseline_gemm", 1.52, 1.523, 1.515, 1.534, 0.002);
  pair.optimized = measured("optimized_gemm_tiled", 1.5, 1.502, 1.497, 1.511, 0.002);
  pair.speedup = Speedup{1.0133, 0.9811, 1.0402, 0.95, 2000, "no significant difference"};
  Roofline roofline;
  roofline.achieved_tflops = 28.1;
  roofline.fraction = 0.42;
  roofline.bound = "compute";
  roofline.ceiling = "fp32_simt";
  roofline.ceiling_value = 66.9;
  roofline.ceiling_unit = "TFLOP/s";
  pair.roofline = roofline;
  pair.verification = passed_checks();
  return pair;
}

PairResult transpose_crashed() {
  PairResult pair;
  pair.target = "ch07:transpose_naive";
  pair.chapter = "ch07";
  pair.pair = "transpose";
  pair.status = PairStatus::crashed;
  pair.reason = "SIGSEGV in the worker during run()\nlast CUDA call: cudaLaunchKernel";
  pair.log_file = "logs/ch07_transpose_naive.log";
  return pair;
}

PairResult fp8_skipped() {
  PairResult pair;
  pair.target = "ch18:fp8_gemm";
  pair.chapter = "ch18";
  pair.pair = "fp8_gemm";
  pair.status = PairStatus::skipped;
  pair.reason = "needs FP8 tensor cores (compute capability 8.9+), this GPU is 8.0";
  return pair;
}

RunResults small_run() {
  RunResults results;
  results.run_id = "20261121T101500Z";
  results.started_at = "2026-11-21T10:15:00Z";
  results.finished_at = "2026-11-21T10:20:31Z";
  results.complete = true;
  results.pairs = {transpose_passed(), gemm_no_difference(), transpose_crashed(), fp8_skipped()};
  return results;
}

const nlohmann::json kManifest = {{"gpus", {{{"name", "NVIDIA H200"}}}}};

TEST(MarkdownSummary, MatchesGoldenText) {
  const std::string expected =
      R"(# aisp run 20261121T101500Z on NVIDIA H200

Started 2026-11-21T10:15:00Z, finished 2026-11-21T10:20:31Z. 4 pairs: 2 passed, 1 failed, 1 skipped.

| Target | Status | Baseline median | Optimized median | Speedup [95% CI] | Verdict | Roofline (optimized) | Verification |
|:--|:--|--:|--:|:--|:--|:--|:--|
| ch07:transpose_padded | passed | 412 µs | 98.1 µs | 4.20× [4.15, 4.27] | faster | 88% of hbm_bandwidth 4275 GB/s | passed (3 checks) |
| ch10:gemm_tiled | passed | 1.52 ms | 1.50 ms | 1.01× [0.98, 1.04] | no significant difference | 42% of fp32_simt 66.9 TFLOP/s | passed (3 checks) |
| ch07:transpose_naive | crashed | — | — | — | — | — | — |
| ch18:fp8_gemm | skipped | — | — | — | — | — | — |

## Failures and skips

- **ch07:transpose_naive** crashed: SIGSEGV in the worker during run() (log: `logs/ch07_transpose_naive.log`)

  ```text
  last CUDA call: cudaLaunchKernel
  ```

- **ch18:fp8_gemm** skipped: needs FP8 tensor cores (compute capability 8.9+), this GPU is 8.0
)";
  EXPECT_EQ(render_markdown_summary(small_run(), kManifest), expected);
}

TEST(MarkdownSummary, SaysNoGpuAndInterruptedAndEscapesPipes) {
  RunResults results;
  results.run_id = "r1";
  results.complete = false;
  PairResult pair = transpose_passed();
  pair.speedup->verdict = "a | b";
  results.pairs = {pair};
  const std::string text = render_markdown_summary(results, nlohmann::json::object());
  EXPECT_EQ(text.rfind("# aisp run r1 on no GPU\n\n> **Interrupted:**", 0), 0U) << text;
  EXPECT_NE(text.find("| a \\| b |"), std::string::npos) << text;
  EXPECT_NE(text.find("None: every pair passed.\n"), std::string::npos) << text;
  EXPECT_EQ(render_markdown_summary(results, nlohmann::json{{"gpus", nlohmann::json::array()}})
                .rfind("# aisp run r1 on no GPU\n", 0),
            0U);
}

TEST(MarkdownSummary, NamesHardwareKeyAndCommitFromTheManifest) {
  RunResults results;
  results.run_id = "r2";
  results.complete = true;
  nlohmann::json manifest = kManifest;
  manifest["hardware_key"] = "h200";
  manifest["git_commit"] = "1a2b3c4";
  manifest["git_dirty"] = true;
  EXPECT_NE(render_markdown_summary(results, manifest)
                .find("\nHardware key `h200`, git commit `1a2b3c4` (with uncommitted changes).\n"),
            std::string::npos);
  manifest.erase("hardware_key");
  manifest["git_dirty"] = false;
  EXPECT_NE(render_markdown_summary(results, manifest).find("\nGit commit `1a2b3c4`.\n"),
            std::string::npos);
}

TEST(MarkdownSummary, QuarantinesTheSpeedupOfAPairThatDidNotPass) {
  RunResults results;
  results.complete = true;
  PairResult pair = transpose_passed();
  pair.status = PairStatus::failed;
  pair.reason = "verification failed: within_tolerance";
  results.pairs = {pair};
  const std::string text = render_markdown_summary(results, kManifest);
  EXPECT_EQ(text.find("4.20×"), std::string::npos) << text;
  EXPECT_NE(text.find("- **ch07:transpose_padded** failed: verification failed: within_tolerance"),
            std::string::npos)
      << text;
}

TEST(CsvExport, MatchesGoldenText) {
  const std::string expected =
      "target,chapter,pair,status,reason,verification,"
      "baseline_median_ms,baseline_mean_ms,baseline_p05_ms,baseline_p95_ms,"
      "baseline_relative_noise,baseline_samples,baseline_timing_method,"
      "optimized_median_ms,optimized_mean_ms,optimized_p05_ms,optimized_p95_ms,"
      "optimized_relative_noise,optimized_samples,optimized_timing_method,"
      "speedup,speedup_ci_low,speedup_ci_high,speedup_verdict,bytes,flops,"
      "achieved_gbps,achieved_tflops,roofline_fraction,ceiling,ceiling_value,ceiling_unit,"
      "sm_clock_before_mhz,sm_clock_after_mhz,"
      "expectation_verdict,expected_speedup,expected_speedup_ci_low,expected_speedup_ci_high,"
      "profile_status,"
      "baseline_profiled_ms_per_run,baseline_profiled_kernel,baseline_sm_throughput_pct,"
      "baseline_memory_throughput_pct,baseline_dram_throughput_pct,baseline_achieved_occupancy_pct,"
      "optimized_profiled_ms_per_run,optimized_profiled_kernel,optimized_sm_throughput_pct,"
      "optimized_memory_throughput_pct,optimized_dram_throughput_pct,"
      "optimized_achieved_occupancy_pct,"
      "library,library_reference_variant,library_role,library_fraction,library_fraction_ci_low,"
      "library_fraction_ci_high,library_fraction_verdict,library_reference_median_ms,"
      "baseline_error_relative_rms,baseline_error_max_abs,optimized_error_relative_rms,"
      "optimized_error_max_abs,optimized_error_max_relative,lower_precision,"
      "lower_precision_format,lower_precision_max_relative_rms\n"
      "ch07:transpose_padded,ch07,transpose,passed,,passed,"
      "0.412,0.4151,0.4093,0.4302,0.004,40,cuda_events,"
      "0.0981,0.0983,0.0975,0.0992,0.0031,40,graph_replay,"
      "4.2023,4.1511,4.2677,faster,134217728,0,1368.2,0,0.8812,hbm_bandwidth,4275,GB/"
      "s,1980,1755,,,,,,,,,,,,,,,,,"
      ",,,,,,,,,,,,,,,,\n"
      "ch10:gemm_tiled,ch10,gemm,passed,,passed,"
      "1.52,1.523,1.515,1.534,0.002,40,cuda_events,"
      "1.5,1.502,1.497,1.511,0.002,40,cuda_events,"
      "1.0133,0.9811,1.0402,no significant difference,0,137000000000,0,28.1,0.42,fp32_simt,66.9,"
      "TFLOP/s,,,,,,,,,,,,,,,,,,,"
      ",,,,,,,,,,,,,,,,\n"
      "ch07:transpose_naive,ch07,transpose,crashed,\"SIGSEGV in the worker during run()\n"
      "last CUDA call: cudaLaunchKernel\",,,,,,,,,,,,,,,,,,,,0,0,,,,,,,,,,,,,,,,,,,,,,,,,"
      ",,,,,,,,,,,,,,,,\n"
      "ch18:fp8_gemm,ch18,fp8_gemm,skipped,"
      "\"needs FP8 tensor cores (compute capability 8.9+), this GPU is 8.0\","
      ",,,,,,,,,,,,,,,,,,,0,0,,,,,,,,,,,,,,,,,,,,,,,,,"
      ",,,,,,,,,,,,,,,,\n";
  EXPECT_EQ(render_csv(small_run()), expected);
}

TEST(CsvExport, EveryRowHasOneCellPerColumn) {
  const std::string csv = render_csv(small_run());
  const std::size_t first_line_end = csv.find('\n');
  const std::string header = csv.substr(0, first_line_end);
  EXPECT_EQ(static_cast<std::size_t>(std::count(header.begin(), header.end(), ',')) + 1,
            csv_columns().size());
}

TEST(CsvExport, CarriesTheExpectationVerdictAndTheProfile) {
  RunResults results;
  PairResult pair = transpose_passed();
  ExpectationCheck check;
  check.verdict = "regression";
  check.hardware_key = "h200";
  check.expected_speedup = 4.5;
  check.expected_ci_low = 4.4;
  check.expected_ci_high = 4.6;
  pair.expectation = check;
  PairProfile profile;
  profile.status = ProfileStatus::collected;
  VariantProfile optimized;
  optimized.variant = "transpose_padded";
  optimized.status = ProfileStatus::collected;
  optimized.duration_ms_per_run = 0.097;
  ProfiledKernel kernel;
  kernel.name = "transpose_padded_kernel";
  kernel.launches = 1;
  kernel.metrics = {{"gpu__time_duration.sum", "ns", 97000},
                    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 31.5},
                    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", 88.25}};
  optimized.kernels = {kernel};
  VariantProfile baseline;
  baseline.status = ProfileStatus::failed;
  baseline.reason = "ncu exited 1";
  profile.baseline = baseline;
  profile.optimized = optimized;
  pair.profile = profile;
  results.pairs = {pair};
  const std::string csv = render_csv(results);
  EXPECT_NE(csv.find(",1980,1755,regression,4.5,4.4,4.6,collected,,,,,,,"
                     "0.097,transpose_padded_kernel,31.5,,88.25,"
                     ",,,,,,,,,,,,,,,,\n"),
            std::string::npos)
      << csv;
}

TEST(CsvExport, QuotesFieldsPerRfc4180) {
  EXPECT_EQ(csv_field("plain text"), "plain text");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(csv_field("carriage\rreturn"), "\"carriage\rreturn\"");

  RunResults results;
  PairResult pair = fp8_skipped();
  pair.target = "ch99:odd,name";
  pair.reason = "needs \"FP8\", sorry";
  results.pairs = {pair};
  const std::string csv = render_csv(results);
  EXPECT_NE(csv.find("\n\"ch99:odd,name\",ch18,fp8_gemm,skipped,\"needs \"\"FP8\"\", sorry\","),
            std::string::npos)
      << csv;
}

TEST(CsvExport, LeavesQuarantinedSpeedupsEmpty) {
  RunResults results;
  PairResult pair = transpose_passed();
  pair.verification.passed = false;
  pair.status = PairStatus::failed;
  results.pairs = {pair};
  const std::string csv = render_csv(results);
  EXPECT_EQ(csv.find("4.2023"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",failed,,failed,0.412,"), std::string::npos) << csv;
}

TEST(TextSummary, TableMatchesGoldenText) {
  const std::string expected =
      R"(Status  Target                 Baseline  Optimized  Speedup [95% CI]    Roofline              Note
PASS    ch07:transpose_padded    412 µs    98.1 µs  4.20× [4.15, 4.27]  88% of hbm_bandwidth  faster
PASS    ch10:gemm_tiled         1.52 ms    1.50 ms  1.01× [0.98, 1.04]  42% of fp32_simt      no significant difference
FAIL    ch07:transpose_naive          —          —  —                   —                     crashed: SIGSEGV in the worker during run() | last CUDA call: cudaLaunchKernel (log: logs/ch07_transpose_naive.log)
SKIP    ch18:fp8_gemm                 —          —  —                   —                     needs FP8 tensor cores (compute capability 8.9+), this GPU is 8.0

4 pairs: 2 passed, 1 failed, 1 skipped
)";
  EXPECT_EQ(render_text_summary(small_run()), expected);
}

// A machine without a GPU skips every GPU pair for one reason: the table says it once, with the
// number of pairs, after the pairs that ran; another reason gets its own row.
TEST(TextSummary, SkipsAreOneRowPerReason) {
  RunResults results;
  const std::string no_gpu = "needs a GPU: no NVIDIA driver or GPU found";
  for (const char* target : {"ch01:a", "ch03:b", "ch07:c"}) {
    PairResult skipped = fp8_skipped();
    skipped.target = target;
    skipped.reason = no_gpu;
    results.pairs.push_back(skipped);
  }
  results.pairs.push_back(transpose_passed());
  results.pairs.push_back(fp8_skipped());
  const std::string text = render_text_summary(results);
  EXPECT_NE(text.find("SKIP    3 pairs "), std::string::npos) << text;
  EXPECT_EQ(text.find("ch01:a"), std::string::npos) << text;
  const std::size_t passed = text.find("PASS    ch07:transpose_padded");
  const std::size_t grouped = text.find(no_gpu);
  ASSERT_NE(passed, std::string::npos) << text;
  ASSERT_NE(grouped, std::string::npos) << text;
  EXPECT_LT(passed, grouped) << text;
  EXPECT_EQ(text.find(no_gpu, grouped + 1), std::string::npos) << text;
  EXPECT_NE(text.find("SKIP    ch18:fp8_gemm"), std::string::npos) << text;
  EXPECT_NE(text.find("5 pairs: 1 passed, 0 failed, 4 skipped"), std::string::npos) << text;
}

TEST(TextSummary, CountsSayWhenTheRunWasInterrupted) {
  RunResults results;
  results.complete = false;
  PairResult stopped = fp8_skipped();
  stopped.status = PairStatus::interrupted;
  stopped.reason = "";
  results.pairs = {stopped};
  const std::string text = render_text_summary(results);
  EXPECT_NE(text.find("STOP    ch18:fp8_gemm"), std::string::npos) << text;
  EXPECT_NE(text.find("\n1 pair: 0 passed, 0 failed, 0 skipped, 1 interrupted (interrupted: the "
                      "results are partial)\n"),
            std::string::npos)
      << text;
}

TEST(TextSummary, PairLines) {
  EXPECT_EQ(format_pair_line(transpose_passed()),
            "PASS ch07:transpose_padded  412 µs → 98.1 µs  4.20× [4.15, 4.27]  88% of "
            "hbm_bandwidth");
  EXPECT_EQ(format_pair_line(gemm_no_difference()),
            "PASS ch10:gemm_tiled  1.52 ms → 1.50 ms  1.01× [0.98, 1.04] no significant "
            "difference  42% of fp32_simt");
  EXPECT_EQ(format_pair_line(transpose_crashed()),
            "FAIL ch07:transpose_naive  crashed: SIGSEGV in the worker during run() | last CUDA "
            "call: cudaLaunchKernel (log: logs/ch07_transpose_naive.log)");
  EXPECT_EQ(
      format_pair_line(fp8_skipped()),
      "SKIP ch18:fp8_gemm  needs FP8 tensor cores (compute capability 8.9+), this GPU is 8.0");

  PairResult verified_only = transpose_passed();
  verified_only.baseline.reset();
  verified_only.optimized.reset();
  verified_only.speedup.reset();
  verified_only.roofline.reset();
  EXPECT_EQ(format_pair_line(verified_only), "PASS ch07:transpose_padded  verified (3 checks)");

  PairResult timed_out = fp8_skipped();
  timed_out.status = PairStatus::timed_out;
  timed_out.reason = "no result after 300 s";
  EXPECT_EQ(format_pair_line(timed_out), "FAIL ch18:fp8_gemm  timed out: no result after 300 s");
}

TEST(TextSummary, LongReasonsAreCutToOneLine) {
  PairResult failed = transpose_crashed();
  failed.status = PairStatus::failed;
  failed.log_file.clear();
  failed.reason = std::string(400, 'x') + "\nend";
  const std::string line = format_pair_line(failed);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(report_format::display_width(line),
            std::string("FAIL ch07:transpose_naive  ").size() + 300);
  EXPECT_EQ(line.substr(line.size() - 3), "…");
}

TEST(ReportFormat, DurationsUseAReadableUnit) {
  using report_format::format_duration_ms;
  EXPECT_EQ(format_duration_ms(0.00085), "850 ns");
  EXPECT_EQ(format_duration_ms(0.0042), "4.20 µs");
  EXPECT_EQ(format_duration_ms(0.0981), "98.1 µs");
  EXPECT_EQ(format_duration_ms(0.412), "412 µs");
  EXPECT_EQ(format_duration_ms(0.99996), "1.00 ms");
  EXPECT_EQ(format_duration_ms(12.34), "12.3 ms");
  EXPECT_EQ(format_duration_ms(1234.5), "1.23 s");
  EXPECT_EQ(format_duration_ms(0), "0 ms");
  EXPECT_EQ(format_duration_ms(std::numeric_limits<double>::quiet_NaN()), "—");
}

TEST(ReportFormat, SpeedupsPercentagesAndRooflines) {
  using namespace report_format;
  EXPECT_EQ(format_speedup(Speedup{3.1234, 3.0511, 3.2049, 0.95, 2000, "faster"}),
            "3.12× [3.05, 3.20]");
  EXPECT_EQ(format_speedup(Speedup{12.34, 11.91, 12.8, 0.95, 2000, "faster"}),
            "12.3× [11.9, 12.8]");
  EXPECT_EQ(format_ratio(150.4), "150×");
  EXPECT_EQ(format_percent(0.8712), "87%");
  EXPECT_EQ(format_percent(0.042), "4.2%");
  Roofline roofline;
  roofline.fraction = 0.87;
  roofline.ceiling = "hbm_bandwidth";
  roofline.ceiling_value = 4275.4;
  roofline.ceiling_unit = "GB/s";
  EXPECT_EQ(format_roofline(roofline, true), "87% of hbm_bandwidth 4275 GB/s");
  EXPECT_EQ(format_roofline(roofline, false), "87% of hbm_bandwidth");
  roofline.ceiling = "none";
  EXPECT_EQ(format_roofline(roofline, true), "87%");
}

TEST(ReportFormat, Verification) {
  using report_format::format_verification;
  EXPECT_EQ(format_verification(Verification{}), "—");
  Verification verification = passed_checks();
  EXPECT_EQ(format_verification(verification), "passed (3 checks)");
  verification.passed = false;
  verification.checks[1].passed = false;
  verification.checks[2].passed = false;
  EXPECT_EQ(format_verification(verification), "failed: outputs_written, within_tolerance");
}

// small_run() with its pairs compared: a regression, one as expected, two not compared.
RunResults compared_run() {
  RunResults results = small_run();
  ExpectationCheck regression;
  regression.verdict = "regression";
  regression.hardware_key = "h200";
  regression.threshold = 0.05;
  regression.expected_speedup = 6;
  regression.recorded = "NVIDIA H200, commit a3c7892717b5, 2026-11-22, run r0";
  regression.detail = "measured 4.20× [4.15, 4.27], below the expected 6.00× [5.90, 6.10] by more "
                      "than 5% (the interval ends under 5.62×)";
  results.pairs[0].expectation = regression;
  ExpectationCheck as_expected = regression;
  as_expected.verdict = "as_expected";
  results.pairs[1].expectation = as_expected;
  ExpectationCheck not_compared;
  not_compared.verdict = "not_compared";
  not_compared.hardware_key = "h200";
  not_compared.threshold = 0.05;
  results.pairs[2].expectation = not_compared;
  results.pairs[3].expectation = not_compared;
  return results;
}

TEST(TextSummary, ListsRegressionsAgainstTheExpectations) {
  const std::string text = render_text_summary(compared_run());
  EXPECT_NE(text.find("\n4 pairs: 2 passed, 1 failed, 1 skipped\nExpectations: compared with the "
                      "expectations for h200 (5% threshold): 1 regression, 1 as expected, 2 not "
                      "compared\n  REGRESSION ch07:transpose_padded  measured 4.20× [4.15, 4.27], "
                      "below the expected 6.00× [5.90, 6.10] by more than 5% (the interval ends "
                      "under 5.62×) (recorded: NVIDIA H200, commit a3c7892717b5, 2026-11-22, run "
                      "r0)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(report_format::format_expectation_counts(small_run()), "");
  EXPECT_EQ(render_text_summary(small_run()).find("Expectations"), std::string::npos);
}

TEST(MarkdownSummary, HasAnExpectationsSectionWhenThePairsWereCompared) {
  const std::string text = render_markdown_summary(compared_run(), kManifest);
  EXPECT_NE(text.find("\n## Expectations\n\nCompared with the expectations for h200 (5% "
                      "threshold): 1 regression, 1 as expected, 2 not compared.\n\n- "
                      "**ch07:transpose_padded** regression: measured 4.20× [4.15, 4.27], below "
                      "the expected 6.00×"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("## Expectations"), text.find("## Failures and skips"));
  EXPECT_EQ(render_markdown_summary(small_run(), kManifest).find("## Expectations"),
            std::string::npos);
}

// A GEMM rung against its pair's cuBLASLt reference, timed in the same worker, with its error
// against the float64 reference.
PairResult gemm_with_library() {
  PairResult pair;
  pair.target = "ch10:gemm_bf16_wgmma";
  pair.chapter = "ch10";
  pair.pair = "gemm_bf16";
  pair.baseline_variant = "baseline_gemm_bf16";
  pair.optimized_variant = "optimized_gemm_bf16_wgmma";
  pair.status = PairStatus::passed;
  pair.flops = 1.1e12;
  pair.baseline = measured("baseline_gemm_bf16", 9.81, 9.82, 9.79, 9.85, 0.001);
  pair.optimized = measured("optimized_gemm_bf16_wgmma", 2.48, 2.49, 2.47, 2.5, 0.002);
  pair.speedup = Speedup{3.9556, 3.941, 3.97, 0.95, 2000, "faster"};
  pair.verification = passed_checks();
  LibraryComparison library;
  library.library = "cuBLASLt";
  library.reference_variant = "optimized_gemm_bf16_cublaslt";
  library.role = LibraryRole::timed;
  library.fraction = Speedup{0.61234, 0.60111, 0.62345, 0.95, 2000, "slower"};
  library.reference = measured("optimized_gemm_bf16_cublaslt", 1.52, 1.52, 1.51, 1.53, 0.001);
  pair.library = library;
  PrecisionResult precision;
  precision.baseline.variant = "baseline_gemm_bf16";
  precision.baseline.outputs = {OutputError{"c", 2048, 0.0019876, 0.0312, 0.0123, 1870}};
  precision.optimized.variant = "optimized_gemm_bf16_wgmma";
  precision.optimized.outputs = {OutputError{"c", 2048, 0.0021234, 0.0351, 0.0143, 1870}};
  pair.precision = precision;
  return pair;
}

// An FP8 variant that declares its lower precision, and the pair's cuBLASLt reference.
PairResult fp8_lower_precision() {
  PairResult pair = gemm_with_library();
  pair.target = "ch19:gemm_fp8_per_tensor";
  pair.chapter = "ch19";
  pair.pair = "gemm_fp8";
  pair.optimized_variant = "optimized_gemm_fp8_per_tensor";
  pair.library->role = LibraryRole::reference;
  pair.library->reference_variant = "optimized_gemm_fp8_per_tensor";
  pair.library->fraction.reset();
  pair.library->reference.reset();
  pair.precision->optimized.variant = "optimized_gemm_fp8_per_tensor";
  pair.precision->optimized.outputs = {OutputError{"c", 2048, 0.0361, 0.512, std::nullopt, 0}};
  pair.precision->optimized.lower_precision =
      PrecisionDeclaration{"fp8_e4m3 A and B, per-tensor scales", 0.05, "3 mantissa bits"};
  return pair;
}

TEST(TextSummary, PairLinesCarryTheLibraryFractionAndALowerPrecisionMark) {
  EXPECT_EQ(format_pair_line(gemm_with_library()),
            "PASS ch10:gemm_bf16_wgmma  9.81 ms → 2.48 ms  3.96× [3.94, 3.97]  61.2% [60.1%, "
            "62.3%] of cuBLASLt");
  EXPECT_EQ(format_pair_line(fp8_lower_precision()),
            "PASS ch19:gemm_fp8_per_tensor  9.81 ms → 2.48 ms  3.96× [3.94, 3.97]  the cuBLASLt "
            "reference  LOWER PRECISION (fp8_e4m3 A and B, per-tensor scales)");

  PairResult unavailable = gemm_with_library();
  unavailable.library->fraction.reset();
  unavailable.library->reference.reset();
  unavailable.library->reason =
      "the cuBLASLt reference (optimized_gemm_bf16_cublaslt) is unavailable here: no algorithm";
  EXPECT_EQ(format_pair_line(unavailable),
            "PASS ch10:gemm_bf16_wgmma  9.81 ms → 2.48 ms  3.96× [3.94, 3.97]  no fraction of "
            "cuBLASLt: the cuBLASLt reference (optimized_gemm_bf16_cublaslt) is unavailable "
            "here: no algorithm");

  // A pair that did not pass shows no fraction, as it shows no speedup.
  PairResult quarantined = gemm_with_library();
  quarantined.status = PairStatus::quarantined;
  quarantined.reason = "quarantined: within_tolerance";
  EXPECT_EQ(format_pair_line(quarantined).find("of cuBLASLt"), std::string::npos);
}

TEST(TextSummary, TheTableGainsLibraryAndErrorColumnsOnlyWhenARunHasThem) {
  RunResults results;
  results.complete = true;
  results.pairs = {gemm_with_library(), fp8_lower_precision(), fp8_skipped()};
  const std::string expected =
      R"(Status  Target                    Baseline  Optimized  Speedup [95% CI]    Roofline  Of library                        Error (rel. RMS)         Note
PASS    ch10:gemm_bf16_wgmma       9.81 ms    2.48 ms  3.96× [3.94, 3.97]  —         61.2% [60.1%, 62.3%] of cuBLASLt  0.00212                  faster
PASS    ch19:gemm_fp8_per_tensor   9.81 ms    2.48 ms  3.96× [3.94, 3.97]  —         the cuBLASLt reference            0.0361, lower precision  faster
SKIP    ch18:fp8_gemm                    —          —  —                   —         —                                 —                        needs FP8 tensor cores (compute capability 8.9+), this GPU is 8.0

3 pairs: 2 passed, 0 failed, 1 skipped
)";
  EXPECT_EQ(render_text_summary(results), expected);
}

TEST(PrecisionFormat, TheTerminalLineGivesBothVariantsErrorsAndTheDeclaration) {
  EXPECT_EQ(precision_format::format_precision_line(gemm_with_library()),
            "precision against the float64 reference (2048 sampled elements): c rel. RMS 0.00212 "
            "(baseline 0.00199), max |err| 0.0351 (0.0312), max rel 0.0143 (0.0123)");
  EXPECT_EQ(precision_format::format_precision_line(fp8_lower_precision()),
            "precision against the float64 reference (2048 sampled elements): c rel. RMS 0.0361 "
            "(baseline 0.00199), max |err| 0.512 (0.0312), max rel — (0.0123); optimized is LOWER "
            "PRECISION (fp8_e4m3 A and B, per-tensor scales, held to rel. RMS <= 0.05)");
  PairResult without_reference = fp8_lower_precision();
  without_reference.precision->baseline.outputs.clear();
  without_reference.precision->optimized.outputs.clear();
  EXPECT_EQ(precision_format::format_precision_line(without_reference),
            "precision: not measured (the pair's baseline gives no float64 reference); optimized "
            "is LOWER PRECISION (fp8_e4m3 A and B, per-tensor scales, held to rel. RMS <= 0.05)");
  EXPECT_EQ(precision_format::format_precision_line(transpose_passed()), "");
}

TEST(MarkdownSummary, HasLibraryAndPrecisionColumnsAndSections) {
  RunResults results;
  results.complete = true;
  results.pairs = {gemm_with_library(), fp8_lower_precision()};
  const std::string text = render_markdown_summary(results, kManifest);
  EXPECT_NE(text.find("| Target | Status | Baseline median | Optimized median | Speedup [95% CI] "
                      "| Verdict | Roofline (optimized) | Of library [95% CI] | Error (rel. RMS) | "
                      "Verification |\n|:--|:--|--:|--:|:--|:--|:--|:--|--:|:--|\n"
                      "| ch10:gemm_bf16_wgmma | passed | 9.81 ms | 2.48 ms | 3.96× [3.94, 3.97] | "
                      "faster | — | 61.2% [60.1%, 62.3%] of cuBLASLt | 0.00212 | passed (3 checks) "
                      "|\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("## Library references\n\n"), std::string::npos) << text;
  EXPECT_NE(text.find("- **ch10:gemm_bf16_wgmma** 61.2% [60.1%, 62.3%] of cuBLASLt: "
                      "`optimized_gemm_bf16_cublaslt` 1.52 ms against `optimized_gemm_bf16_wgmma` "
                      "2.48 ms, interleaved in one worker\n"
                      "- **ch19:gemm_fp8_per_tensor** is the cuBLASLt reference "
                      "(`optimized_gemm_fp8_per_tensor`); its speedup is over the baseline as "
                      "usual\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| ch19:gemm_fp8_per_tensor | optimized_gemm_fp8_per_tensor | c | 0.0361 | "
                      "0.512 | — | **lower precision**: fp8_e4m3 A and B, per-tensor scales, held "
                      "to rel. RMS <= 0.05 |\n"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("## Library references"), text.find("## Precision against the float64"));
  EXPECT_LT(text.find("## Precision against the float64"), text.find("## Failures and skips"));
}

TEST(CsvExport, CarriesTheLibraryFractionAndTheErrors) {
  RunResults results;
  results.pairs = {gemm_with_library(), fp8_lower_precision()};
  const std::string csv = render_csv(results);
  EXPECT_NE(csv.find(",cuBLASLt,optimized_gemm_bf16_cublaslt,timed,0.61234,0.60111,0.62345,slower,"
                     "1.52,0.0019876,0.0312,0.0021234,0.0351,0.0143,false,,\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",cuBLASLt,optimized_gemm_fp8_per_tensor,reference,,,,,,0.0019876,0.0312,"
                     "0.0361,0.512,,true,\"fp8_e4m3 A and B, per-tensor scales\",0.05\n"),
            std::string::npos)
      << csv;
}

}  // namespace
}  // namespace aisp
