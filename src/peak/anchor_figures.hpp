// What ANCHORS.md says about each `bench peak` figure, and whether the figure should agree with it.
//
// Two kinds of figure: a GPU ceiling (HBM copy, GEMM rates, the pinned PCIe transfers) is a
// property of the GPU model and its link, so a measurement on the same model should land within
// the tolerance of ANCHORS.md's figure, and the report says whether it does. A host-dependent
// figure (pageable transfers, launch latencies, the graph per-node cost) moves with the host's
// CPU, memory, virtualisation and driver: measured on H200 machines it varied by 20-45% between
// allocations and machines (docs/peaks.md), so the report shows ANCHORS.md's figure beside it and
// does not judge it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aisp::peak {

enum class AnchorKind {
  gpu_ceiling,     // judged: should agree within kAnchorTolerance
  host_dependent,  // shown beside the measurement, not judged
};

// A figure of ANCHORS.md: a value or a range ("764-776 TFLOP/s": low 764, high 776).
struct FigureAnchor {
  double low = 0, high = 0;
  AnchorKind kind = AnchorKind::gpu_ceiling;
  std::string source;  // "ANCHORS.md, H200, CUDA 13.0: cudaMemcpyAsync of 4 GiB, median of 20"

  double middle() const { return (low + high) / 2; }
  std::string value_text() const;  // "4275" or "764-776"
};

// Agreement means within 5% of the anchor's range: low x 0.95 <= measured <= high x 1.05.
inline constexpr double kAnchorTolerance = 0.05;

// ANCHORS.md's figure for the `bench peak` figure `figure_name` ("bf16_gemm") on `hardware_key`
// ("h200"; a multi-GPU key such as "2x_h200" uses its single-GPU figures). nullopt where
// ANCHORS.md has none, or measured it another way (the FP32 FMA kernel is not its SGEMM).
std::optional<FigureAnchor> anchor_for_figure(std::string_view figure_name,
                                              const std::string& hardware_key);

// Whether `measured` lies within the tolerance of the anchor's range.
bool agrees_with_anchor(double measured, const FigureAnchor& anchor,
                        double tolerance = kAnchorTolerance);

}  // namespace aisp::peak
