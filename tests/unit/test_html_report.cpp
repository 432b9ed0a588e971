// report.html: every string escaped, every pair present, the charts drawn from the right data,
// quarantined pairs without numbers, and nothing fetched from the network.
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/html_report.hpp"
#include "results/run_input.hpp"
#include "system/build_info.hpp"

namespace aisp {
namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The text of the <svg> element whose data-chart is `chart`, or "" when there is none.
std::string chart_of(const std::string& html, const std::string& chart) {
  const std::size_t start = html.find("<svg class=\"chart\" data-chart=\"" + chart + "\"");
  if (start == std::string::npos) {
    return {};
  }
  return html.substr(start, html.find("</svg>", start) - start);
}

VariantMeasurement measured(const std::string& variant, double median_ms) {
  VariantMeasurement measurement;
  measurement.variant = variant;
  for (int i = 0; i < 50; ++i) {
    measurement.event_ms.push_back(median_ms * (1.0 + 0.01 * (i % 7 - 3)));
    measurement.host_ms.push_back(median_ms * 1.02);
  }
  measurement.stats.count = 50;
  measurement.stats.median = median_ms;
  measurement.stats.mean = median_ms;
  measurement.host_stats.median = median_ms * 1.02;
  measurement.converged = true;
  measurement.stop_reason = "noise 0.31% <= 0.50% after 50 samples";
  return measurement;
}

Roofline roofline(std::string bound, std::string ceiling, double value, std::string unit,
                  double fraction, double gbps, double tflops) {
  Roofline result;
  result.bound = std::move(bound);
  result.ceiling = std::move(ceiling);
  result.ceiling_value = value;
  result.ceiling_unit = std::move(unit);
  result.fraction = fraction;
  result.achieved_gbps = gbps;
  result.achieved_tflops = tflops;
  result.floor_ms = 0.1;
  result.ceiling_source = "ANCHORS.md: measured";
  return result;
}

PairResult passed(const std::string& target, double baseline_ms, double optimized_ms) {
  PairResult pair;
  pair.target = target;
  pair.chapter = target.substr(0, target.find(':'));
  pair.pair = target.substr(target.find(':') + 1);
  pair.baseline_variant = "baseline_" + pair.pair;
  pair.optimized_variant = "optimized_" + pair.pair;
  pair.status = PairStatus::passed;
  pair.signature = {{"n", "4096"}, {"dtype", "f32"}};
  pair.baseline = measured(pair.baseline_variant, baseline_ms);
  pair.optimized = measured(pair.optimized_variant, optimized_ms);
  const double value = baseline_ms / optimized_ms;
  pair.speedup = Speedup{value, value * 0.98, value * 1.02, 0.95, 2000, "faster"};
  pair.verification.passed = true;
  pair.verification.checks = {{"signatures_equal", true, "n=4096 dtype=f32"},
                              {"within_tolerance", true, "0 of 4096 elements outside"}};
  pair.gpu_before.sm_clock_mhz = 1980;
  pair.gpu_after.sm_clock_mhz = 1980;
  pair.log_file = "logs/" + pair.chapter + "_" + pair.pair + ".log";
  return pair;
}

RunResults sample_run() {
  RunResults run;
  run.run_id = "20261122-000426-1454";
  run.started_at = "2026-11-22T00:04:26Z";
  run.finished_at = "2026-11-22T00:04:49Z";
  run.complete = true;

  PairResult copy = passed("ch07:copy_coalesced", 5.83, 0.527);
  copy.bytes = 2147483648.0;
  copy.roofline = roofline("memory", "hbm_bandwidth", 4275, "GB/s", 0.95, 4074, 0);
  copy.baseline_roofline = roofline("memory", "hbm_bandwidth", 4275, "GB/s", 0.086, 368, 0);
  run.pairs.push_back(copy);

  PairResult gemm = passed("ch01:gemm_batched", 0.632, 0.252);
  gemm.bytes = 125829120.0;
  gemm.flops = 10737418240.0;
  gemm.roofline = roofline("compute", "fp32_simt", 50.6, "TFLOP/s", 0.84, 499, 42.6);
  gemm.baseline_roofline = roofline("compute", "fp32_simt", 50.6, "TFLOP/s", 0.34, 199, 17.0);
  run.pairs.push_back(gemm);

  // Strings from a hostile or careless result: every one must come out escaped.
  PairResult crashed = passed("ch90:<b>crash</b>", 1, 1);
  crashed.status = PairStatus::crashed;
  crashed.reason = "SIGSEGV <script>alert(\"x\")</script> & 'quoted'\nsecond line";
  crashed.speedup.reset();
  crashed.signature = {{"<name>", "\"value\" & <more>"}};
  crashed.verification.passed = false;
  crashed.verification.checks = {{"outputs_written", false, "y: <img src=x onerror=alert(1)>"}};
  crashed.optimized->stop_reason = "</table><script>bad()</script>";
  run.pairs.push_back(crashed);

  // Passed, but its outputs did not verify: quarantined, whatever its speedup says.
  PairResult unverified = passed("ch90:wrong", 9.99, 1.0);
  unverified.verification.passed = false;
  unverified.verification.checks = {{"within_tolerance", false, "12 elements differ"}};
  unverified.roofline = roofline("memory", "hbm_bandwidth", 4275, "GB/s", 0.77, 3300, 0);
  run.pairs.push_back(unverified);

  PairResult skipped = passed("ch90:needs_gpu", 1, 1);
  skipped.status = PairStatus::skipped;
  skipped.reason = "needs a GPU: no CUDA device is visible";
  skipped.baseline.reset();
  skipped.optimized.reset();
  skipped.speedup.reset();
  skipped.verification = {};
  run.pairs.push_back(skipped);
  return run;
}

nlohmann::json sample_manifest() {
  return nlohmann::json{{"hardware_key", "h200"},
                        {"git_commit", "2d26c8cf5a9a"},
                        {"git_dirty", false},
                        {"command_line", "aisp bench run -t '<ch01>' && rm -rf /"},
                        {"gpus", {{{"name", "NVIDIA H200 <rev \"A\">"}}}}};
}

std::string render_sample() {
  HtmlReportOptions options;
  options.results_source = "runs/x/results.json";
  options.log_href_prefix = "./";
  options.generator = "aisp test";
  return render_html_report(sample_run(), sample_manifest(), options);
}

TEST(HtmlEscape, EscapesMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(html_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(html_escape("tab\tline\n"), "tab\tline\n");
  EXPECT_EQ(html_escape(std::string("nul\0bell\a", 9)), "nul\xEF\xBF\xBD"
                                                        "bell\xEF\xBF\xBD");
  EXPECT_EQ(html_escape("µs × ≤"), "µs × ≤");
}

TEST(HtmlReport, EscapesEveryStringFromTheResults) {
  const std::string html = render_sample();
  // Exactly one script element: the page's own.
  EXPECT_EQ(count_of(html, "<script"), 1u);
  EXPECT_EQ(html.find("alert(\"x\")"), std::string::npos);
  EXPECT_EQ(html.find("<b>crash</b>"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("</table><script>bad"), std::string::npos);
  EXPECT_EQ(html.find("<name>"), std::string::npos);
  EXPECT_EQ(html.find("<rev"), std::string::npos);
  EXPECT_EQ(html.find("'<ch01>'"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;"),
            std::string::npos);
  EXPECT_NE(html.find("ch90:&lt;b&gt;crash&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("y: &lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;value&quot; &amp; &lt;more&gt;"), std::string::npos);
  EXPECT_NE(html.find("NVIDIA H200 &lt;rev &quot;A&quot;&gt;"), std::string::npos);
  EXPECT_NE(html.find("&#39;&lt;ch01&gt;&#39; &amp;&amp; rm -rf /"), std::string::npos);
}

TEST(HtmlReport, EveryPairHasARowAndADetailSection) {
  const std::string html = render_sample();
  const RunResults run = sample_run();
  for (std::size_t i = 0; i < run.pairs.size(); ++i) {
    const std::string target = html_escape(run.pairs[i].target);
    EXPECT_NE(html.find("<tr data-pair=\"p" + std::to_string(i) + "\"><td><a href=\"#pair-" +
                        std::to_string(i) + "\">" + target + "</a>"),
              std::string::npos)
        << target;
    EXPECT_NE(html.find("<details class=\"pair\" id=\"pair-" + std::to_string(i) + "\""),
              std::string::npos)
        << target;
  }
  // Every verification check, with its outcome and detail.
  EXPECT_NE(html.find("<code>signatures_equal</code></td><td>✓ passed</td><td>n=4096 dtype=f32"),
            std::string::npos);
  EXPECT_NE(html.find("<code>within_tolerance</code></td><td>✗ failed</td><td>12 elements differ"),
            std::string::npos);
  // Timing detail: stop reason, clocks, samples, logs.
  EXPECT_NE(html.find("noise 0.31% &lt;= 0.50% after 50 samples"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>SM clock</th><td>1980 MHz</td><td>1980 MHz</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"./logs/ch07_copy_coalesced.log\">"), std::string::npos);
  EXPECT_NE(html.find("needs a GPU: no CUDA device is visible"), std::string::npos);
  EXPECT_NE(html.find("<header>\n<h1>aisp run 20261122-000426-1454"), std::string::npos);
}

TEST(HtmlReport, DrawsTheSpeedupRooflineAndCeilingCharts) {
  const std::string html = render_sample();
  const std::string speedups = chart_of(html, "speedups");
  ASSERT_FALSE(speedups.empty());
  // Only the two verified pairs get a dot; every pair gets a row.
  EXPECT_NE(speedups.find("data-marks=\"2\""), std::string::npos);
  EXPECT_EQ(count_of(speedups, "data-mark=\"speedup\""), 2u);
  EXPECT_EQ(count_of(speedups, "class=\"whisker faster\""), 6u);  // a line and two caps each
  EXPECT_NE(speedups.find("1× (no change)"), std::string::npos);
  EXPECT_NE(speedups.find("no speedup: crashed"), std::string::npos);
  EXPECT_NE(speedups.find("no speedup: outputs did not verify"), std::string::npos);
  EXPECT_NE(speedups.find("11.1× [10.8, 11.3]"), std::string::npos) << speedups;

  // The roofline holds the one pair with FLOPs and bytes, under the compute ceiling it binds and
  // the HBM bandwidth another pair of the run was measured against.
  const std::string roofline = chart_of(html, "roofline");
  ASSERT_FALSE(roofline.empty());
  EXPECT_NE(roofline.find("data-marks=\"1\""), std::string::npos);
  EXPECT_NE(roofline.find("fp32_simt 50.6 TFLOP/s"), std::string::npos) << roofline;
  EXPECT_NE(roofline.find("hbm_bandwidth 4275 GB/s"), std::string::npos) << roofline;
  EXPECT_NE(roofline.find("ch01:gemm_batched optimized variant: 42.6 TFLOP/s at 85.3 FLOP/byte"),
            std::string::npos);
  EXPECT_EQ(count_of(roofline, "class=\"ceiling roof\""), 2u);  // the slope and the flat line

  // Against the ceiling: both verified pairs; the unverified one's 77% appears nowhere.
  const std::string ceilings = chart_of(html, "ceilings");
  ASSERT_FALSE(ceilings.empty());
  EXPECT_NE(ceilings.find("data-marks=\"2\""), std::string::npos);
  EXPECT_NE(ceilings.find("95% of hbm_bandwidth 4275 GB/s"), std::string::npos);
  EXPECT_NE(ceilings.find("4074 GB/s achieved; baseline variant 8.6%"), std::string::npos);
  EXPECT_NE(ceilings.find("42.6 TFLOP/s achieved"), std::string::npos);

  // A histogram per timed variant.
  EXPECT_EQ(count_of(html, "data-chart=\"samples\""), 8u);  // the skipped pair has none
}

TEST(HtmlReport, QuarantinedPairsShowNoSpeedupOrRoofline) {
  const std::string html = render_sample();
  EXPECT_EQ(html.find("9.99×"), std::string::npos);
  EXPECT_EQ(html.find("77%"), std::string::npos);
  EXPECT_NE(html.find("none reported: outputs did not verify"), std::string::npos);
}

TEST(HtmlReport, IsSelfContained) {
  const std::string html = render_sample();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  const std::regex external(R"((src|href)\s*=\s*["']?\s*(https?:)?//)", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("@font-face"), std::string::npos);
  EXPECT_EQ(count_of(html, "<style>"), 1u);
  EXPECT_NE(html.find("<body data-rendered=\"pending\">"), std::string::npos);
  EXPECT_NE(html.find("setAttribute(\"data-rendered\""), std::string::npos);
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
}

TEST(HtmlReport, AnEmptyRunSaysSo) {
  RunResults run;
  run.run_id = "empty";
  run.complete = false;
  const std::string html = render_html_report(run, nlohmann::json::object(), {});
  EXPECT_NE(html.find("This run was interrupted"), std::string::npos);
  EXPECT_NE(html.find("GPU unknown (no manifest)"), std::string::npos);
  EXPECT_NE(html.find("The run holds no pairs."), std::string::npos);
  EXPECT_EQ(html.find("data-chart=\"speedups\""), std::string::npos);
  EXPECT_NE(html.find("there is no roofline to draw"), std::string::npos);
}

TEST(HtmlReport, RendersTheH200FixtureRun) {
  const std::filesystem::path fixture =
      std::filesystem::path(build_info().source_dir) / "tests/data/run_h200_ch01";
  const LoadedRun run = load_run(fixture);
  EXPECT_TRUE(run.warnings.empty());
  const std::string html = render_html_report(run.results, run.manifest, {});
  for (const char* target : {"ch01:gemm_batched", "ch01:h2d_copy", "ch01:launch_graph"}) {
    EXPECT_NE(html.find(std::string(">") + target + "</a>"), std::string::npos) << target;
  }
  EXPECT_NE(html.find("aisp run 20261122-000426-1454 <span class=\"gpu\">on NVIDIA H200</span>"),
            std::string::npos);
  // Only the GEMM has FLOPs and bytes and is not launch-bound: one roofline point, under fp32_simt
  // (no bandwidth ceiling of this run binds a GPU kernel: h2d_copy's is the PCIe link).
  const std::string roofline = chart_of(html, "roofline");
  EXPECT_NE(roofline.find("data-marks=\"1\""), std::string::npos);
  EXPECT_NE(roofline.find("fp32_simt 50.6 TFLOP/s"), std::string::npos);
  EXPECT_EQ(roofline.find("host_to_device_pinned"), std::string::npos);
  EXPECT_NE(html.find("No bandwidth ceiling binds a pair plotted here"), std::string::npos);
  // Every pair has a roofline against its own ceiling, the launch-bound one included.
  const std::string ceilings = chart_of(html, "ceilings");
  EXPECT_NE(ceilings.find("data-marks=\"3\""), std::string::npos);
  EXPECT_NE(ceilings.find("57% of graph_node_launch 0.68 us"), std::string::npos);
  EXPECT_NE(ceilings.find("99% of host_to_device_pinned 55 GB/s"), std::string::npos);
  EXPECT_NE(html.find("120 stored"), std::string::npos);  // the fixture's trimmed samples
}

TEST(HtmlReport, MarksARegressionAgainstTheExpectations) {
  RunResults run = sample_run();
  ExpectationCheck regression;
  regression.verdict = "regression";
  regression.hardware_key = "h200";
  regression.threshold = 0.05;
  regression.expected_speedup = 20;
  regression.recorded = "NVIDIA H200, commit a3c7892717b5, 2026-11-22, run r0";
  regression.detail = "measured 11.06× [10.84, 11.28], below the expected <20×>";
  run.pairs[0].expectation = regression;
  ExpectationCheck as_expected = regression;
  as_expected.verdict = "as_expected";
  as_expected.detail = "measured 2.51×, expected 2.52×";
  run.pairs[1].expectation = as_expected;
  const std::string html = render_html_report(run, sample_manifest(), {});
  EXPECT_EQ(count_of(html, "below expectation (h200)"), 1u);
  EXPECT_EQ(count_of(html, "above expectation"), 0u);
  EXPECT_NE(html.find("below the expected &lt;20×&gt;"), std::string::npos);  // escaped
  EXPECT_NE(html.find("<th>Expectation (h200)</th>"), std::string::npos);
  EXPECT_NE(html.find(">as_expected</span>"), std::string::npos);
  // Without comparisons (older results), nothing about expectations appears.
  EXPECT_EQ(render_sample().find("Expectation"), std::string::npos);
}

}  // namespace
}  // namespace aisp
