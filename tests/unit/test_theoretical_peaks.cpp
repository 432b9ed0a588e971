// The datasheet table of `aisp bench theoretical-peak`: names resolve (keys, aliases, device
// names as CUDA reports them), unknown names get suggestions, and every row is complete and
// self-consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "peak/theoretical_peaks.hpp"
#include "system/system_info.hpp"

namespace aisp {
namespace {

std::string key_of(std::string_view name) {
  const TheoreticalPeak* peak = find_theoretical_peak(name);
  return peak == nullptr ? "<none>" : std::string(peak->key);
}

TEST(TheoreticalPeaks, EveryRequiredGpuHasARow) {
  for (const char* key :
       {"h100_sxm", "h100_pcie", "h200", "b200", "b300", "gb200", "a100_sxm", "l40s"}) {
    EXPECT_EQ(key_of(key), key);
  }
}

TEST(TheoreticalPeaks, KeysAndAliasesIgnoreCaseSpacesAndDashes) {
  EXPECT_EQ(key_of("h100"), "h100_sxm");
  EXPECT_EQ(key_of("H100_SXM"), "h100_sxm");
  EXPECT_EQ(key_of("h100-sxm"), "h100_sxm");
  EXPECT_EQ(key_of("H100 SXM5"), "h100_sxm");
  EXPECT_EQ(key_of("h200"), "h200");
  EXPECT_EQ(key_of("H200"), "h200");
  EXPECT_EQ(key_of("h200_sxm"), "h200");
  EXPECT_EQ(key_of("NVIDIA H200"), "h200");
  EXPECT_EQ(key_of("  nvidia h200  "), "h200");
  EXPECT_EQ(key_of("h100-pcie"), "h100_pcie");
  EXPECT_EQ(key_of("a100"), "a100_sxm");
  EXPECT_EQ(key_of("L40S"), "l40s");
}

TEST(TheoreticalPeaks, DeviceNamesAsCudaReportsThem) {
  EXPECT_EQ(key_of("NVIDIA H100 80GB HBM3"), "h100_sxm");
  EXPECT_EQ(key_of("NVIDIA H100 PCIe"), "h100_pcie");
  EXPECT_EQ(key_of("NVIDIA A100-SXM4-80GB"), "a100_sxm");
  EXPECT_EQ(key_of("NVIDIA B200"), "b200");
  EXPECT_EQ(key_of("NVIDIA B300 SXM6 AC"), "b300");
  EXPECT_EQ(key_of("NVIDIA GB200"), "gb200");  // never taken for a B200
}

TEST(TheoreticalPeaks, UnknownNamesResolveToNothing) {
  EXPECT_EQ(find_theoretical_peak("nonsense"), nullptr);
  EXPECT_EQ(find_theoretical_peak(""), nullptr);
  EXPECT_EQ(find_theoretical_peak("list"), nullptr);
  // Other products of a family are not silently mapped to a row they differ from.
  EXPECT_EQ(find_theoretical_peak("NVIDIA H100 NVL"), nullptr);
  EXPECT_EQ(find_theoretical_peak("NVIDIA A100-PCIE-40GB"), nullptr);
  EXPECT_EQ(find_theoretical_peak("NVIDIA H200 NVL"), nullptr);
}

TEST(TheoreticalPeaks, UnknownNamesGetTheClosestKnownOnes) {
  const auto contains = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  EXPECT_TRUE(contains(closest_theoretical_peak_names("h201"), "h200"));
  EXPECT_TRUE(contains(closest_theoretical_peak_names("b20"), "b200"));
  EXPECT_TRUE(contains(closest_theoretical_peak_names("H100 SMX"), "h100_sxm"));
  EXPECT_LE(closest_theoretical_peak_names("h2", 2).size(), 2u);
}

TEST(TheoreticalPeaks, NamesAreUniqueAndEachResolvesToItsOwnRow) {
  std::set<std::string> seen;
  for (const std::string& name : theoretical_peak_names()) {
    EXPECT_TRUE(seen.insert(name).second) << name << " names two rows";
  }
  for (const TheoreticalPeak& peak : theoretical_peaks()) {
    EXPECT_EQ(find_theoretical_peak(peak.key), &peak);
    EXPECT_EQ(find_theoretical_peak(peak.name), &peak) << peak.name;
  }
}

TEST(TheoreticalPeaks, KeysAreTheHardwareKeysOfTheirNames) {
  // So a measured machine's key finds its datasheet row.
  for (const TheoreticalPeak& peak : theoretical_peaks()) {
    EXPECT_EQ(gpu_model_key(peak.name), peak.key) << peak.name;
  }
}

TEST(TheoreticalPeaks, EveryRowIsComplete) {
  for (const TheoreticalPeak& peak : theoretical_peaks()) {
    SCOPED_TRACE(std::string(peak.key));
    EXPECT_FALSE(peak.name.empty());
    EXPECT_FALSE(peak.architecture.empty());
    EXPECT_GE(peak.compute_capability, 80);
    EXPECT_GT(peak.memory_gb, 0);
    EXPECT_GT(peak.memory_bandwidth_gbps, 0);
    EXPECT_GT(peak.fp32_tflops, 0);
    EXPECT_GT(peak.tf32_tflops, 0);
    EXPECT_GT(peak.bf16_tflops, 0);
    EXPECT_GT(peak.fp16_tflops, 0);
    EXPECT_GT(peak.tdp_w, 0);
    EXPECT_NE(peak.source.find("datasheet"), std::string_view::npos) << peak.source;
    EXPECT_FALSE(peak.notes.empty());
    // FP8 tensor cores exist from compute capability 8.9 on, and only there.
    EXPECT_EQ(peak.fp8_tflops.has_value(), peak.compute_capability >= 89);
    // An absent figure is explained, never just missing.
    if (!peak.nvlink_gbps) {
      EXPECT_NE(peak.notes.find("No NVLink"), std::string_view::npos);
    }
    if (!peak.sm_count || !peak.l2_mib) {
      EXPECT_NE(peak.notes.find("not published"), std::string_view::npos);
    }
  }
}

TEST(TheoreticalPeaks, RatesAreOrderedAsTheHardwareIs) {
  for (const TheoreticalPeak& peak : theoretical_peaks()) {
    SCOPED_TRACE(std::string(peak.key));
    EXPECT_LT(peak.fp32_tflops, peak.tf32_tflops);
    EXPECT_LT(peak.tf32_tflops, peak.bf16_tflops);
    if (peak.fp8_tflops) {
      EXPECT_GT(*peak.fp8_tflops, peak.bf16_tflops);
    }
  }
  // ANCHORS.md's datasheet line: H100 SXM / H200 dense BF16 989, FP8 1979, TF32 495, FP32 67;
  // HBM 3.35 / 4.8 TB/s; NVLink 900 GB/s.
  const TheoreticalPeak* h100 = find_theoretical_peak("h100_sxm");
  const TheoreticalPeak* h200 = find_theoretical_peak("h200");
  ASSERT_NE(h100, nullptr);
  ASSERT_NE(h200, nullptr);
  for (const TheoreticalPeak* peak : {h100, h200}) {
    EXPECT_NEAR(peak->bf16_tflops, 989, 1);
    EXPECT_NEAR(*peak->fp8_tflops, 1979, 1);
    EXPECT_NEAR(peak->tf32_tflops, 495, 1);
    EXPECT_EQ(peak->fp32_tflops, 67);
    EXPECT_EQ(*peak->nvlink_gbps, 900);
  }
  EXPECT_EQ(h100->memory_bandwidth_gbps, 3350);
  EXPECT_EQ(h200->memory_bandwidth_gbps, 4800);
}

TEST(TheoreticalPeaks, JsonHasEveryFieldNullOnlyWhenAbsent) {
  for (const TheoreticalPeak& peak : theoretical_peaks()) {
    SCOPED_TRACE(std::string(peak.key));
    const nlohmann::ordered_json json = theoretical_peak_to_json(peak);
    for (const char* field :
         {"key", "name", "aliases", "architecture", "compute_capability", "memory_gb",
          "memory_bandwidth_gbps", "fp32_tflops", "tf32_tflops", "bf16_tflops", "fp16_tflops",
          "fp8_tflops", "nvlink_gbps", "sm_count", "l2_mib", "tdp_w", "source", "notes"}) {
      EXPECT_TRUE(json.contains(field)) << field;
    }
    EXPECT_EQ(json["key"], std::string(peak.key));
    EXPECT_EQ(json["fp8_tflops"].is_null(), !peak.fp8_tflops.has_value());
    EXPECT_EQ(json["nvlink_gbps"].is_null(), !peak.nvlink_gbps.has_value());
    EXPECT_EQ(json["sm_count"].is_null(), !peak.sm_count.has_value());
    EXPECT_EQ(json["l2_mib"].is_null(), !peak.l2_mib.has_value());
    EXPECT_EQ(json["bf16_tflops"].get<double>(), peak.bf16_tflops);
  }
}

TEST(TheoreticalPeaks, TextNamesEveryFigureAndTheSource) {
  const TheoreticalPeak& h200 = *find_theoretical_peak("h200");
  const std::string text = format_theoretical_peak(h200);
  for (const char* expected :
       {"key h200", "4800 GB/s", "989.5 TFLOP/s", "1979 TFLOP/s", "900 GB/s", "132", "60 MiB",
        "700 W", "H200 Tensor Core GPU datasheet", "dense"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " missing from\n" << text;
  }
  const std::string a100 = format_theoretical_peak(*find_theoretical_peak("a100"));
  EXPECT_NE(a100.find("none (no FP8 tensor cores)"), std::string::npos) << a100;
  const std::string table = format_theoretical_peak_table(theoretical_peaks());
  for (const TheoreticalPeak& peak : theoretical_peaks()) {
    EXPECT_NE(table.find(std::string(peak.key)), std::string::npos) << peak.key;
  }
}

}  // namespace
}  // namespace aisp
