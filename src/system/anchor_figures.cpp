#include "system/anchor_figures.hpp"

#include <array>

#include <fmt/format.h>

#include "system/ceilings.hpp"

namespace aisp {
namespace {

constexpr std::string_view kH200 = "ANCHORS.md: measured on H200, CUDA 13.0, 2026-11-21";
constexpr std::string_view kH100 =
    "ANCHORS.md: an H100 measured by the project, figure given as approximate (SXM: the figures "
    "exceed what an H100 PCIe reaches)";

struct AnchorRow {
  std::string_view hardware_key;
  std::string_view figure;  // PeakFigure::name
  Ceiling ceiling;          // the roofline ceiling it stands for; none for information
  double low, high;
  AnchorKind kind;
  std::string_view where;
  std::string_view how;
};

constexpr AnchorKind gpu = AnchorKind::gpu_ceiling;
constexpr AnchorKind host = AnchorKind::host_dependent;

// ANCHORS.md's "Ceilings measured on an NVIDIA H200" table, row by row, and its H100 line.
constexpr std::array<AnchorRow, 15> kRows{{
    {"h200", "hbm_copy_memcpy", Ceiling::hbm_bandwidth, 4275, 4275, gpu, kH200,
     "cudaMemcpyAsync device-to-device of 4 GiB, median of 20, bytes read + written"},
    {"h200", "hbm_copy_float4_kernel", Ceiling::none, 3955, 3955, gpu, kH200,
     "plain float4 grid-stride copy kernel, same buffers"},
    {"h200", "host_to_device_pinned", Ceiling::host_to_device_pinned, 55, 55, gpu, kH200,
     "1 GiB cudaMemcpy from pinned memory"},
    {"h200", "device_to_host_pinned", Ceiling::device_to_host_pinned, 55, 55, gpu, kH200,
     "1 GiB cudaMemcpy to pinned memory"},
    {"h200", "host_to_device_pageable", Ceiling::host_to_device_pageable, 6.3, 6.3, host, kH200,
     "1 GiB cudaMemcpy from malloc'd (pageable) memory"},
    {"h200", "device_to_host_pageable", Ceiling::none, 10.5, 10.5, host, kH200,
     "1 GiB cudaMemcpy to malloc'd (pageable) memory"},
    {"h200", "launch_with_sync", Ceiling::none, 10, 10, host, kH200,
     "empty kernel, synchronize after each, host clock"},
    {"h200", "launch_async", Ceiling::none, 4.1, 4.5, host, kH200,
     "empty kernel, asynchronous enqueue, host clock"},
    {"h200", "graph_node_launch", Ceiling::graph_node_launch, 0.68, 0.68, host, kH200,
     "CUDA graph of 1000 empty kernels, host clock, cost per node"},
    {"h200", "bf16_gemm", Ceiling::bf16_tensor, 764, 776, gpu, kH200,
     "cuBLAS BF16 GEMM 8192^3 (cublasGemmEx, fp32 accumulate, random data); 770 is the middle "
     "of the measured 764-776 range"},
    {"h200", "fp8_e4m3_gemm", Ceiling::fp8_tensor, 1438, 1438, gpu, kH200,
     "cuBLASLt FP8 e4m3 GEMM 8192^3, TN layout, bf16 output"},
    {"h200", "tf32_gemm", Ceiling::tf32_tensor, 406, 406, gpu, kH200, "cuBLAS TF32 GEMM 8192^3"},
    {"h200", "fp32_sgemm", Ceiling::fp32_simt, 50.6, 50.6, gpu, kH200,
     "cuBLAS SGEMM 8192^3, no tensor cores"},
    {"h100_sxm", "hbm_copy_memcpy", Ceiling::hbm_bandwidth, 3000, 3000, gpu, kH100,
     "device-to-device copy, about 3.0 TB/s (bytes read + written)"},
    {"h100_sxm", "bf16_gemm", Ceiling::bf16_tensor, 798, 798, gpu, kH100,
     "cuBLAS BF16 GEMM, about 798 TFLOP/s"},
}};

FigureAnchor anchor_of(const AnchorRow& row) {
  FigureAnchor anchor;
  anchor.low = row.low;
  anchor.high = row.high;
  anchor.kind = row.kind;
  anchor.source = fmt::format("{}; {}", row.where, row.how);
  return anchor;
}

std::optional<FigureAnchor> find_row(std::string_view figure_name, std::string_view key) {
  for (const AnchorRow& row : kRows) {
    if (row.hardware_key == key && row.figure == figure_name) {
      return anchor_of(row);
    }
  }
  return std::nullopt;
}

std::string number_text(double value) { return fmt::format("{:g}", value); }

}  // namespace

std::string FigureAnchor::value_text() const {
  return low == high ? number_text(low) : number_text(low) + "-" + number_text(high);
}

std::optional<FigureAnchor> anchor_for_figure(std::string_view figure_name,
                                              const std::string& hardware_key) {
  if (auto anchor = find_row(figure_name, hardware_key)) {
    return anchor;
  }
  if (const std::optional<std::string> single = single_gpu_key(hardware_key)) {
    return find_row(figure_name, *single);
  }
  return std::nullopt;
}

std::optional<FigureAnchor> anchor_for_ceiling(Ceiling ceiling, std::string_view hardware_key) {
  if (ceiling == Ceiling::none) {
    return std::nullopt;
  }
  for (const AnchorRow& row : kRows) {
    if (row.hardware_key == hardware_key && row.ceiling == ceiling) {
      return anchor_of(row);
    }
  }
  return std::nullopt;
}

bool agrees_with_anchor(double measured, const FigureAnchor& anchor, double tolerance) {
  return measured >= anchor.low * (1 - tolerance) && measured <= anchor.high * (1 + tolerance);
}

}  // namespace aisp
