#include "peak/anchor_figures.hpp"

#include <array>

#include <fmt/format.h>

#include "system/ceilings.hpp"

namespace aisp::peak {
namespace {

constexpr std::string_view kH200 = "ANCHORS.md, H200 (132 SMs, 1980 MHz), CUDA 13.0";
constexpr std::string_view kH100 = "ANCHORS.md, an H100 measured by the project (\"about\")";

struct AnchorRow {
  std::string_view hardware_key;
  std::string_view figure;  // PeakFigure::name
  double low, high;
  AnchorKind kind;
  std::string_view where;
  std::string_view how;
};

constexpr AnchorKind gpu = AnchorKind::gpu_ceiling;
constexpr AnchorKind host = AnchorKind::host_dependent;

// ANCHORS.md's "Ceilings measured on an NVIDIA H200" table, row by row, and its H100 line.
constexpr std::array<AnchorRow, 15> kRows{{
    {"h200", "hbm_copy_memcpy", 4275, 4275, gpu, kH200, "cudaMemcpyAsync of 4 GiB, median of 20"},
    {"h200", "hbm_copy_float4_kernel", 3955, 3955, gpu, kH200,
     "plain float4 grid-stride copy kernel, same buffers"},
    {"h200", "host_to_device_pinned", 55, 55, gpu, kH200, "1 GiB cudaMemcpy, pinned"},
    {"h200", "device_to_host_pinned", 55, 55, gpu, kH200, "1 GiB cudaMemcpy, pinned"},
    {"h200", "host_to_device_pageable", 6.3, 6.3, host, kH200, "1 GiB cudaMemcpy, malloc'd memory"},
    {"h200", "device_to_host_pageable", 10.5, 10.5, host, kH200,
     "1 GiB cudaMemcpy, malloc'd memory"},
    {"h200", "launch_with_sync", 10, 10, host, kH200, "empty kernel, synchronize after each"},
    {"h200", "launch_async", 4.1, 4.5, host, kH200, "empty kernel, asynchronous enqueue"},
    {"h200", "graph_node_launch", 0.68, 0.68, host, kH200,
     "CUDA graph of 1000 empty kernels, host clock"},
    {"h200", "bf16_gemm", 764, 776, gpu, kH200, "cuBLAS BF16 GEMM 8192^3, cublasGemmEx"},
    {"h200", "fp8_e4m3_gemm", 1438, 1438, gpu, kH200, "cuBLASLt FP8 e4m3 GEMM 8192^3, TN"},
    {"h200", "tf32_gemm", 406, 406, gpu, kH200, "cuBLAS TF32 GEMM 8192^3"},
    {"h200", "fp32_sgemm", 50.6, 50.6, gpu, kH200, "cuBLAS FP32 SGEMM 8192^3"},
    {"h100_sxm", "hbm_copy_memcpy", 3000, 3000, gpu, kH100, "about 3.0 TB/s copy"},
    {"h100_sxm", "bf16_gemm", 798, 798, gpu, kH100, "about 798 TFLOP/s BF16 GEMM"},
}};

std::optional<FigureAnchor> find_row(std::string_view figure_name, std::string_view key) {
  for (const AnchorRow& row : kRows) {
    if (row.hardware_key == key && row.figure == figure_name) {
      FigureAnchor anchor;
      anchor.low = row.low;
      anchor.high = row.high;
      anchor.kind = row.kind;
      anchor.source = fmt::format("{}: {}", row.where, row.how);
      return anchor;
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

bool agrees_with_anchor(double measured, const FigureAnchor& anchor, double tolerance) {
  return measured >= anchor.low * (1 - tolerance) && measured <= anchor.high * (1 + tolerance);
}

}  // namespace aisp::peak
