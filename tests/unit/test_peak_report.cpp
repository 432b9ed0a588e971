// The report of `aisp bench peak`, fed made-up figures (no GPU, no timing): which figures are
// stored, what their sources say, and what the table and the JSON show.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "peak/peak_runner.hpp"

namespace aisp {
namespace {

PeakFigure measured(std::string name, std::string unit, Ceiling ceiling, double median) {
  PeakFigure figure;
  figure.name = name;
  figure.label = name + " label";
  figure.unit = std::move(unit);
  figure.ceiling = ceiling;
  figure.status = PeakStatus::measured;
  figure.repetitions = {median * 0.99, median, median * 1.01};
  figure.median = median;
  figure.method = name + " method";
  figure.tool = name + " tool";
  return figure;
}

PeakReport sample_report() {
  PeakReport report;
  report.hardware_key = "h200";
  report.gpu_count = 1;
  report.gpu_name = "NVIDIA H200";
  report.compute_capability = 90;
  report.cuda_runtime = "13.0";
  report.driver = "580.95.05";
  report.date = "2026-11-25";
  report.peaks_file = "artifacts/peaks/h200.json";
  report.figures = {
      measured("hbm_copy_memcpy", "GB/s", Ceiling::hbm_bandwidth, 4275),
      measured("hbm_copy_float4_kernel", "GB/s", Ceiling::none, 3955),
      measured("fp32_fma_kernel", "TFLOP/s", Ceiling::fp32_simt, 66.5),
      measured("fp32_sgemm", "TFLOP/s", Ceiling::fp32_simt, 50.6),
      measured("graph_node_launch", "us", Ceiling::graph_node_launch, 0.70),
  };
  PeakFigure fp8;
  fp8.name = "fp8_e4m3_gemm";
  fp8.label = "FP8 e4m3 GEMM";
  fp8.unit = "TFLOP/s";
  fp8.ceiling = Ceiling::fp8_tensor;
  fp8.status = PeakStatus::skipped;
  fp8.reason = "FP8 tensor cores need compute capability 8.9 or newer";
  report.figures.push_back(fp8);
  PeakFigure failed = measured("bf16_gemm", "TFLOP/s", Ceiling::bf16_tensor, 0);
  failed.status = PeakStatus::failed;
  failed.reason = "out of memory";
  report.figures.push_back(failed);
  return report;
}

const PeakFigure& figure_named(const PeakReport& report, const std::string& name) {
  for (const PeakFigure& figure : report.figures) {
    if (figure.name == name) {
      return figure;
    }
  }
  throw std::runtime_error("no figure " + name);
}

TEST(PeakReport, StoresEachMeasuredCeilingOnceTheBestCandidate) {
  PeakReport report = sample_report();
  choose_stored_figures(report.figures);
  EXPECT_TRUE(figure_named(report, "hbm_copy_memcpy").stored);
  EXPECT_FALSE(figure_named(report, "hbm_copy_float4_kernel").stored);  // information only
  EXPECT_TRUE(figure_named(report, "fp32_fma_kernel").stored);          // 66.5 > 50.6
  EXPECT_FALSE(figure_named(report, "fp32_sgemm").stored);
  EXPECT_TRUE(figure_named(report, "graph_node_launch").stored);
  EXPECT_FALSE(figure_named(report, "fp8_e4m3_gemm").stored);  // skipped
  EXPECT_FALSE(figure_named(report, "bf16_gemm").stored);      // failed
}

TEST(PeakReport, SgemmIsStoredWhenItBeatsTheKernel) {
  std::vector<PeakFigure> figures = {measured("fp32_fma_kernel", "TFLOP/s", Ceiling::fp32_simt, 40),
                                     measured("fp32_sgemm", "TFLOP/s", Ceiling::fp32_simt, 50.6)};
  choose_stored_figures(figures);
  EXPECT_FALSE(figures[0].stored);
  EXPECT_TRUE(figures[1].stored);
}

TEST(PeakReport, MicrosecondCeilingsKeepTheSmallest) {
  std::vector<PeakFigure> figures = {measured("a", "us", Ceiling::graph_node_launch, 0.9),
                                     measured("b", "us", Ceiling::graph_node_launch, 0.6)};
  choose_stored_figures(figures);
  EXPECT_FALSE(figures[0].stored);
  EXPECT_TRUE(figures[1].stored);
}

TEST(PeakReport, SourcesNameWhatHowWithWhatWhenAndWhere) {
  PeakReport report = sample_report();
  choose_stored_figures(report.figures);
  write_sources(report);
  const std::string& hbm = figure_named(report, "hbm_copy_memcpy").source;
  for (const char* expected :
       {"aisp bench peak", "2026-11-25", "hbm_copy_memcpy label", "4275 GB/s", "median of 3",
        "hbm_copy_memcpy method", "hbm_copy_memcpy tool", "NVIDIA H200", "CUDA runtime 13.0",
        "580.95.05"}) {
    EXPECT_NE(hbm.find(expected), std::string::npos) << expected << " missing from " << hbm;
  }
  const std::string& fp32 = figure_named(report, "fp32_fma_kernel").source;
  EXPECT_NE(fp32.find("fp32_simt is the largest of"), std::string::npos) << fp32;
  EXPECT_NE(fp32.find("fp32_sgemm label 50.60 TFLOP/s"), std::string::npos) << fp32;
  EXPECT_NE(fp32.find("stored: fp32_fma_kernel label"), std::string::npos) << fp32;
  EXPECT_TRUE(figure_named(report, "fp8_e4m3_gemm").source.empty());
}

TEST(PeakReport, TableComparesWithAnchorsAndSaysWhatWasSkipped) {
  PeakReport report = sample_report();
  choose_stored_figures(report.figures);
  for (PeakFigure& figure : report.figures) {
    figure.anchor = anchor_for_figure(figure.name, report.hardware_key);
  }
  report.stored_count = 3;
  const std::string text = format_peak_report(report);
  for (const char* expected :
       {"ANCHORS.md", "hbm_copy_memcpy label", "4275", "1.00", "hbm_bandwidth", "fp32_sgemm label",
        "(fp32_simt: the other candidate is stored)",
        "skipped: FP8 tensor cores need compute capability 8.9 or newer", "FAILED: out of memory",
        "Stored 3 ceilings in artifacts/peaks/h200.json"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " missing from\n" << text;
  }
  // 0.70 us against ANCHORS.md's 0.68 us: host-dependent, shown, not judged.
  EXPECT_NE(text.find("1.03  host"), std::string::npos) << text;
  // The copy and the SGEMM agree; the FMA kernel has no ANCHORS.md figure (ANCHORS measured SGEMM).
  EXPECT_NE(text.find("1.00  within 5%"), std::string::npos) << text;
  EXPECT_NE(text.find("Agreement: 3 of 3 GPU ceilings within 5% of ANCHORS.md; 1 host-dependent "
                      "figure"),
            std::string::npos)
      << text;
}

TEST(PeakReport, AGpuCeilingOutsideTheToleranceIsMarkedOff) {
  PeakReport report;
  report.hardware_key = "2x_h200";  // uses the single-GPU figures
  report.figures = {measured("bf16_gemm", "TFLOP/s", Ceiling::bf16_tensor, 700),
                    measured("tf32_gemm", "TFLOP/s", Ceiling::tf32_tensor, 420)};
  for (PeakFigure& figure : report.figures) {
    figure.anchor = anchor_for_figure(figure.name, report.hardware_key);
    ASSERT_TRUE(figure.anchor.has_value()) << figure.name;
  }
  const std::string text = format_peak_report(report);
  // 700 is more than 5% under 764-776; 420 is within 5% of 406.
  EXPECT_NE(text.find("764-776   0.91  OFF"), std::string::npos) << text;
  EXPECT_NE(text.find("1.03  within 5%"), std::string::npos) << text;
  EXPECT_NE(text.find("Agreement: 1 of 2 GPU ceilings within 5%"), std::string::npos) << text;
  const nlohmann::ordered_json json = peak_report_to_json(report);
  EXPECT_EQ(json["figures"][0]["agrees_with_anchor"], false);
  EXPECT_EQ(json["figures"][1]["agrees_with_anchor"], true);
  EXPECT_EQ(json["figures"][0]["anchor"]["low"], 764);
  EXPECT_EQ(json["figures"][0]["anchor"]["kind"], "gpu_ceiling");
}

TEST(PeakAnchors, RangesAndToleranceAndHostFigures) {
  const auto bf16 = anchor_for_figure("bf16_gemm", "h200");
  ASSERT_TRUE(bf16.has_value());
  EXPECT_EQ(bf16->value_text(), "764-776");
  EXPECT_TRUE(agrees_with_anchor(764 * 0.951, *bf16));
  EXPECT_TRUE(agrees_with_anchor(776 * 1.049, *bf16));
  EXPECT_FALSE(agrees_with_anchor(764 * 0.949, *bf16));
  EXPECT_FALSE(agrees_with_anchor(776 * 1.051, *bf16));
  const auto pageable = anchor_for_figure("host_to_device_pageable", "h200");
  ASSERT_TRUE(pageable.has_value());
  EXPECT_EQ(pageable->kind, AnchorKind::host_dependent);
  EXPECT_FALSE(anchor_for_figure("fp32_fma_kernel", "h200").has_value());
  EXPECT_FALSE(anchor_for_figure("bf16_gemm", "b200").has_value());
  EXPECT_TRUE(anchor_for_figure("bf16_gemm", "h100_sxm").has_value());
}

TEST(PeakReport, JsonHasEveryFigureWithItsStatus) {
  PeakReport report = sample_report();
  choose_stored_figures(report.figures);
  write_sources(report);
  const nlohmann::ordered_json json = peak_report_to_json(report);
  EXPECT_EQ(json["hardware_key"], "h200");
  ASSERT_EQ(json["figures"].size(), report.figures.size());
  for (const auto& figure : json["figures"]) {
    if (figure["status"] == "measured") {
      EXPECT_TRUE(figure["value"].is_number());
      EXPECT_TRUE(figure["repetitions"].is_array());
      EXPECT_TRUE(figure.contains("source"));
      EXPECT_TRUE(figure.contains("stored"));
    } else {
      EXPECT_FALSE(figure.contains("value"));
      EXPECT_TRUE(figure["reason"].is_string());
    }
  }
  EXPECT_EQ(json["figures"][0]["ceiling"], "hbm_bandwidth");
  EXPECT_TRUE(json["figures"][1]["ceiling"].is_null());
}

}  // namespace
}  // namespace aisp
