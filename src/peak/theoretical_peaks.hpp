// Datasheet figures of the GPUs the project runs on or compares with: what `aisp bench
// theoretical-peak` prints. Information only: rooflines divide by *measured* ceilings
// (`aisp bench peak`, system/ceilings.hpp), because no kernel reaches a datasheet peak.
// Tensor-core rates are dense (no 2:4 sparsity) with FP32 accumulate. docs/peaks.md lists the
// sources.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace aisp {

struct TheoreticalPeak {
  std::string_view key;              // the hardware key gpu_model_key() gives it: "h100_sxm"
  std::string_view name;             // "NVIDIA H100 SXM5 80GB"
  std::string_view aliases;          // other accepted names, comma-separated: "h100,h100_sxm5"
  std::string_view architecture;     // "Hopper"
  int compute_capability = 0;        // major * 10 + minor
  double memory_gb = 0;              // as the datasheet states it (10^9 bytes, or its "GB")
  double memory_bandwidth_gbps = 0;  // GB/s
  double fp32_tflops = 0;            // FP32 without tensor cores
  double tf32_tflops = 0;            // tensor cores, dense
  double bf16_tflops = 0;
  double fp16_tflops = 0;
  std::optional<double> fp8_tflops;   // nullopt: no FP8 tensor cores (compute capability < 8.9)
  std::optional<double> nvlink_gbps;  // per GPU, both directions; nullopt: no NVLink
  std::optional<int> sm_count;        // nullopt: not published
  std::optional<double> l2_mib;       // nullopt: not published
  double tdp_w = 0;                   // maximum board / module power
  std::string_view source;            // the vendor documents the figures come from
  std::string_view notes;  // how figures were derived (per-GPU shares, halved sparse rates), and
                           // where SM count or L2 size come from when not from the datasheet
};

// Every row, in the order `--gpu list` prints them.
std::span<const TheoreticalPeak> theoretical_peaks();

// The row a name denotes: a key, an alias, or a device name as CUDA reports it ("NVIDIA H200",
// "NVIDIA H100 80GB HBM3"); case, spaces, dashes and a leading "NVIDIA" do not matter. nullptr
// when none does.
const TheoreticalPeak* find_theoretical_peak(std::string_view name);

// Every key and alias, for suggestions.
std::vector<std::string> theoretical_peak_names();

// The keys and aliases closest to an unknown name (edit distance), at most `limit`.
std::vector<std::string> closest_theoretical_peak_names(std::string_view unknown,
                                                        std::size_t limit = 3);

// The JSON object of one row: every field, null for an absent optional one.
nlohmann::ordered_json theoretical_peak_to_json(const TheoreticalPeak& peak);
// One row as an indented block of "label  value unit" lines, then its source and notes.
std::string format_theoretical_peak(const TheoreticalPeak& peak);
// Every row as one table, a column per figure, then the sources.
std::string format_theoretical_peak_table(std::span<const TheoreticalPeak> peaks);

}  // namespace aisp
