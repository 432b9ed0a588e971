// The datasheet table and its lookups. Every figure is the vendor's; where a document gives a
// board or rack total, the row holds the per-GPU share, and where it gives only the rate with 2:4
// sparsity, the row holds half of it (the dense rate). `notes` says which, per row.
#include "peak/theoretical_peaks.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/pair_catalog.hpp"
#include "system/system_info.hpp"

namespace aisp {
namespace {

constexpr std::array<TheoreticalPeak, 8> kTheoreticalPeaks{{
    {
        .key = "h100_sxm",
        .name = "NVIDIA H100 SXM5 80GB",
        .aliases = "h100,h100_sxm5,h100_80gb_hbm3,h100_sxm5_80gb",
        .architecture = "Hopper",
        .compute_capability = 90,
        .memory_gb = 80,
        .memory_bandwidth_gbps = 3350,
        .fp32_tflops = 67,
        .tf32_tflops = 494.5,
        .bf16_tflops = 989.5,
        .fp16_tflops = 989.5,
        .fp8_tflops = 1979,
        .nvlink_gbps = 900,
        .sm_count = 132,
        .l2_mib = 50,
        .tdp_w = 700,
        .source = "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column); NVIDIA H100 Tensor "
                  "Core GPU Architecture whitepaper (SM count, L2 size)",
        .notes = "Tensor rates are the datasheet's with-sparsity figures halved (TF32 989, "
                 "BF16/FP16 1,979, FP8 3,958 TFLOP/s). TDP: up to 700 W (configurable). The "
                 "whitepaper gives the H100 SXM5 132 SMs and 50 MB of L2.",
    },
    {
        .key = "h100_pcie",
        .name = "NVIDIA H100 PCIe 80GB",
        .aliases = "h100_pcie_80gb,h100_pcie5",
        .architecture = "Hopper",
        .compute_capability = 90,
        .memory_gb = 80,
        .memory_bandwidth_gbps = 2000,
        .fp32_tflops = 51,
        .tf32_tflops = 378,
        .bf16_tflops = 756.5,
        .fp16_tflops = 756.5,
        .fp8_tflops = 1513,
        .nvlink_gbps = 600,
        .sm_count = 114,
        .l2_mib = 50,
        .tdp_w = 350,
        .source = "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column; later editions list "
                  "the H100 NVL instead); NVIDIA H100 Tensor Core GPU Architecture whitepaper "
                  "(SM count, L2 size)",
        .notes = "Tensor rates are the datasheet's with-sparsity figures halved (TF32 756, "
                 "BF16/FP16 1,513, FP8 3,026 TFLOP/s). TDP: 300-350 W (configurable); the upper "
                 "end is listed. NVLink: 600 GB/s through a bridge between two cards.",
    },
    {
        .key = "h200",
        .name = "NVIDIA H200 SXM 141GB",
        .aliases = "h200_sxm,h200_sxm5,h200_141gb",
        .architecture = "Hopper",
        .compute_capability = 90,
        .memory_gb = 141,
        .memory_bandwidth_gbps = 4800,
        .fp32_tflops = 67,
        .tf32_tflops = 494.5,
        .bf16_tflops = 989.5,
        .fp16_tflops = 989.5,
        .fp8_tflops = 1979,
        .nvlink_gbps = 900,
        .sm_count = 132,
        .l2_mib = 60,
        .tdp_w = 700,
        .source = "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column)",
        .notes = "Tensor rates are the datasheet's with-sparsity figures halved (TF32 989, "
                 "BF16/FP16 1,979, FP8 3,958 TFLOP/s). TDP: up to 700 W (configurable). The "
                 "datasheet gives neither SM count nor L2 size: 132 SMs and 60 MiB are what "
                 "cudaGetDeviceProperties reports on the project's H200 (ANCHORS.md).",
    },
    {
        .key = "b200",
        .name = "NVIDIA B200 (HGX B200)",
        .aliases = "b200_sxm,hgx_b200,dgx_b200",
        .architecture = "Blackwell",
        .compute_capability = 100,
        .memory_gb = 180,
        .memory_bandwidth_gbps = 8000,
        .fp32_tflops = 75,
        .tf32_tflops = 1125,
        .bf16_tflops = 2250,
        .fp16_tflops = 2250,
        .fp8_tflops = 4500,
        .nvlink_gbps = 1800,
        .sm_count = 148,
        .l2_mib = 126,
        .tdp_w = 1000,
        .source = "NVIDIA HGX B200 and DGX B200 datasheets (8-GPU figures divided by 8)",
        .notes = "Per GPU = the 8-GPU board's figure / 8; tensor rates are the with-sparsity "
                 "figures halved (board: TF32 18, FP16/BF16 36, FP8 72 PFLOP/s; FP32 600 "
                 "TFLOP/s; 1,440 GB at 64 TB/s). The package carries 192 GB, 180 GB usable. "
                 "NVIDIA publishes no SM count or L2 size: 148 SMs and 126 MB of L2 are Chips "
                 "and Cheese's reading of a B200 (\"Nvidia's B200: Keeping the CUDA Juggernaut "
                 "Rolling\").",
    },
    {
        .key = "b300",
        .name = "NVIDIA B300 (HGX B300, Blackwell Ultra)",
        .aliases = "b300_sxm,hgx_b300,dgx_b300,blackwell_ultra",
        .architecture = "Blackwell Ultra",
        .compute_capability = 103,
        .memory_gb = 288,
        .memory_bandwidth_gbps = 8000,
        .fp32_tflops = 75,
        .tf32_tflops = 1125,
        .bf16_tflops = 2250,
        .fp16_tflops = 2250,
        .fp8_tflops = 4500,
        .nvlink_gbps = 1800,
        .sm_count = 160,
        .l2_mib = std::nullopt,
        .tdp_w = 1100,
        .source = "NVIDIA HGX B300 datasheet (8-GPU figures divided by 8); NVIDIA technical blog "
                  "\"Inside NVIDIA Blackwell Ultra: The Chip Powering the AI Factory Era\" (SM "
                  "count)",
        .notes = "Per GPU = the 8-GPU board's figure / 8; tensor rates are the with-sparsity "
                 "figures halved. Dense FP8 and BF16 equal the B200's; the gains are FP4 and "
                 "memory (288 GB; some system datasheets list 270 GB usable). TDP 1,100 W per "
                 "GPU on HGX (a GB300's GPU: 1,400 W). FP64 is cut to about 1.2 TFLOP/s. L2 size "
                 "not published.",
    },
    {
        .key = "gb200",
        .name = "NVIDIA GB200 (one Blackwell GPU of the superchip)",
        .aliases = "gb200_nvl72,gb200_superchip",
        .architecture = "Blackwell",
        .compute_capability = 100,
        .memory_gb = 186,
        .memory_bandwidth_gbps = 8000,
        .fp32_tflops = 90,
        .tf32_tflops = 1250,
        .bf16_tflops = 2500,
        .fp16_tflops = 2500,
        .fp8_tflops = 5000,
        .nvlink_gbps = 1800,
        .sm_count = std::nullopt,
        .l2_mib = std::nullopt,
        .tdp_w = 1200,
        .source = "NVIDIA GB200 NVL72 datasheet (rack figures divided by its 72 GPUs); NVIDIA "
                  "Blackwell architecture technical brief (FP32 rate, GPU power)",
        .notes = "A GB200 superchip is 2 Blackwell GPUs and 1 Grace CPU; this row is one GPU, "
                 "which runs at a higher power limit than an HGX B200 and so has higher rates. "
                 "Rack: FP8 720, FP16/BF16 360, TF32 180 PFLOP/s with sparsity (halved here), "
                 "13.4 TB of HBM3e at 576 TB/s, 130 TB/s of NVLink. SM count and L2 size not "
                 "published.",
    },
    {
        .key = "a100_sxm",
        .name = "NVIDIA A100 SXM4 80GB",
        .aliases = "a100,a100_80gb,a100_sxm4,a100_sxm4_80gb",
        .architecture = "Ampere",
        .compute_capability = 80,
        .memory_gb = 80,
        .memory_bandwidth_gbps = 2039,
        .fp32_tflops = 19.5,
        .tf32_tflops = 156,
        .bf16_tflops = 312,
        .fp16_tflops = 312,
        .fp8_tflops = std::nullopt,
        .nvlink_gbps = 600,
        .sm_count = 108,
        .l2_mib = 40,
        .tdp_w = 400,
        .source = "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM column); NVIDIA A100 "
                  "Tensor Core GPU Architecture whitepaper (SM count, L2 size)",
        .notes = "The datasheet's tensor rates without sparsity. No FP8 tensor cores (those "
                 "arrived with compute capability 8.9). The 40 GB SXM part shares the hardware "
                 "key a100_sxm but has 1,555 GB/s.",
    },
    {
        .key = "l40s",
        .name = "NVIDIA L40S",
        .aliases = "l40s_48gb",
        .architecture = "Ada Lovelace",
        .compute_capability = 89,
        .memory_gb = 48,
        .memory_bandwidth_gbps = 864,
        .fp32_tflops = 91.6,
        .tf32_tflops = 183,
        .bf16_tflops = 362.05,
        .fp16_tflops = 362.05,
        .fp8_tflops = 733,
        .nvlink_gbps = std::nullopt,
        .sm_count = 142,
        .l2_mib = 96,
        .tdp_w = 350,
        .source = "NVIDIA L40S datasheet; NVIDIA Ada GPU Architecture whitepaper (L2 size)",
        .notes = "Tensor rates are the datasheet's with-sparsity figures halved (TF32 366, "
                 "BF16/FP16 733, FP8 1,466 TFLOP/s). GDDR6 memory. No NVLink: PCIe Gen4 x16 "
                 "(64 GB/s both directions). L2: the full AD102's 96 MB (whitepaper); the L40S "
                 "datasheet does not state it.",
    },
}};

// "NVIDIA H100-SXM5 80GB" -> "h100_sxm5_80gb": lower case, a leading "nvidia" word dropped, runs
// of other characters as one "_".
std::string normalized_gpu_name(std::string_view name) {
  std::string normalized;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      normalized += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!normalized.empty() && normalized.back() != '_') {
      normalized += '_';
    }
  }
  while (!normalized.empty() && normalized.back() == '_') {
    normalized.pop_back();
  }
  if (normalized.starts_with("nvidia_")) {
    normalized.erase(0, 7);
  }
  return normalized;
}

std::vector<std::string> split_aliases(std::string_view aliases) {
  std::vector<std::string> names;
  while (!aliases.empty()) {
    const std::size_t comma = aliases.find(',');
    const std::string_view alias = aliases.substr(0, comma);
    if (!alias.empty()) {
      names.emplace_back(alias);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    aliases.remove_prefix(comma + 1);
  }
  return names;
}

std::string compute_capability_text(int compute_capability) {
  return fmt::format("{}.{}", compute_capability / 10, compute_capability % 10);
}

template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

template <class T>
std::string optional_text(const std::optional<T>& value, std::string_view unit,
                          std::string_view absent) {
  if (!value) {
    return std::string(absent);
  }
  return unit.empty() ? fmt::format("{:g}", static_cast<double>(*value))
                      : fmt::format("{:g} {}", static_cast<double>(*value), unit);
}

constexpr std::string_view kDatasheetCaveat =
    "Datasheet figures: tensor-core rates are dense (no 2:4 sparsity) with FP32 accumulate. No "
    "kernel reaches them; rooflines divide by measured ceilings (`aisp bench peak`).";

}  // namespace

std::span<const TheoreticalPeak> theoretical_peaks() { return kTheoreticalPeaks; }

const TheoreticalPeak* find_theoretical_peak(std::string_view name) {
  const std::string wanted = normalized_gpu_name(name);
  if (wanted.empty()) {
    return nullptr;
  }
  for (const TheoreticalPeak& peak : kTheoreticalPeaks) {
    if (wanted == peak.key) {
      return &peak;
    }
    for (const std::string& alias : split_aliases(peak.aliases)) {
      if (wanted == alias) {
        return &peak;
      }
    }
  }
  // A device name as CUDA reports it ("NVIDIA H100 80GB HBM3"): the key the harness derives.
  const std::string key = gpu_model_key(name);
  for (const TheoreticalPeak& peak : kTheoreticalPeaks) {
    if (key == peak.key) {
      return &peak;
    }
  }
  return nullptr;
}

std::vector<std::string> theoretical_peak_names() {
  std::vector<std::string> names;
  for (const TheoreticalPeak& peak : kTheoreticalPeaks) {
    names.emplace_back(peak.key);
    for (std::string& alias : split_aliases(peak.aliases)) {
      names.push_back(std::move(alias));
    }
  }
  return names;
}

std::vector<std::string> closest_theoretical_peak_names(std::string_view unknown,
                                                        std::size_t limit) {
  return closest_names(normalized_gpu_name(unknown), theoretical_peak_names(), limit);
}

nlohmann::ordered_json theoretical_peak_to_json(const TheoreticalPeak& peak) {
  return nlohmann::ordered_json{
      {"key", peak.key},
      {"name", peak.name},
      {"aliases", split_aliases(peak.aliases)},
      {"architecture", peak.architecture},
      {"compute_capability", compute_capability_text(peak.compute_capability)},
      {"dense", true},
      {"memory_gb", peak.memory_gb},
      {"memory_bandwidth_gbps", peak.memory_bandwidth_gbps},
      {"fp32_tflops", peak.fp32_tflops},
      {"tf32_tflops", peak.tf32_tflops},
      {"bf16_tflops", peak.bf16_tflops},
      {"fp16_tflops", peak.fp16_tflops},
      {"fp8_tflops", optional_json(peak.fp8_tflops)},
      {"nvlink_gbps", optional_json(peak.nvlink_gbps)},
      {"sm_count", optional_json(peak.sm_count)},
      {"l2_mib", optional_json(peak.l2_mib)},
      {"tdp_w", peak.tdp_w},
      {"source", peak.source},
      {"notes", peak.notes},
  };
}

std::string format_theoretical_peak(const TheoreticalPeak& peak) {
  const std::vector<std::string> aliases = split_aliases(peak.aliases);
  std::string text = fmt::format("{} (key {}{}{})\n", peak.name, peak.key,
                                 aliases.empty() ? "" : "; also ", fmt::join(aliases, ", "));
  const auto line = [&text](std::string_view label, const std::string& value) {
    text += fmt::format("  {:<24}{}\n", label, value);
  };
  line("architecture", fmt::format("{}, compute capability {}", peak.architecture,
                                   compute_capability_text(peak.compute_capability)));
  line("memory", fmt::format("{:g} GB", peak.memory_gb));
  line("memory bandwidth", fmt::format("{:g} GB/s", peak.memory_bandwidth_gbps));
  line("FP32 (no tensor cores)", fmt::format("{:g} TFLOP/s", peak.fp32_tflops));
  line("TF32 tensor", fmt::format("{:g} TFLOP/s", peak.tf32_tflops));
  line("BF16 tensor", fmt::format("{:g} TFLOP/s", peak.bf16_tflops));
  line("FP16 tensor", fmt::format("{:g} TFLOP/s", peak.fp16_tflops));
  line("FP8 tensor", optional_text(peak.fp8_tflops, "TFLOP/s", "none (no FP8 tensor cores)"));
  line("NVLink", peak.nvlink_gbps ? fmt::format("{:g} GB/s (both directions)", *peak.nvlink_gbps)
                                  : std::string("none"));
  line("SMs", optional_text(peak.sm_count, "", "not published"));
  line("L2", optional_text(peak.l2_mib, "MiB", "not published"));
  line("TDP", fmt::format("{:g} W", peak.tdp_w));
  text += fmt::format("  source: {}\n  notes: {}\n{}\n", peak.source, peak.notes, kDatasheetCaveat);
  return text;
}

std::string format_theoretical_peak_table(std::span<const TheoreticalPeak> peaks) {
  std::size_t name_width = 4;
  for (const TheoreticalPeak& peak : peaks) {
    name_width = std::max(name_width, peak.key.size());
  }
  std::string text =
      fmt::format("{:<{}}  {:>6} {:>8} {:>6} {:>6} {:>7} {:>7} {:>6} {:>7} {:>4} {:>6} {:>6}\n",
                  "key", name_width, "mem GB", "HBM GB/s", "FP32", "TF32", "BF16", "FP16", "FP8",
                  "NVLink", "SMs", "L2 MiB", "TDP W");
  for (const TheoreticalPeak& peak : peaks) {
    text += fmt::format(
        "{:<{}}  {:>6g} {:>8g} {:>6g} {:>6g} {:>7g} {:>7g} {:>6} {:>7} {:>4} {:>6} {:>6g}\n",
        peak.key, name_width, peak.memory_gb, peak.memory_bandwidth_gbps, peak.fp32_tflops,
        peak.tf32_tflops, peak.bf16_tflops, peak.fp16_tflops,
        optional_text(peak.fp8_tflops, "", "-"), optional_text(peak.nvlink_gbps, "", "-"),
        optional_text(peak.sm_count, "", "?"), optional_text(peak.l2_mib, "", "?"), peak.tdp_w);
  }
  text += "\nRates in TFLOP/s, NVLink in GB/s both directions; - none, ? not published.\n";
  for (const TheoreticalPeak& peak : peaks) {
    text += fmt::format("{:<{}}  {}: {}\n", peak.key, name_width, peak.name, peak.source);
  }
  text += fmt::format("\n{}\n`aisp bench theoretical-peak --gpu <key>` shows one GPU with "
                      "notes on how each figure was derived.\n",
                      kDatasheetCaveat);
  return text;
}

}  // namespace aisp
