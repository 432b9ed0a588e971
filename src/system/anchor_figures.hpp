// ANCHORS.md's measured figures, the one table of them in the code: what `bench peak` compares
// each of its figures with, and the built-in ceilings rooflines fall back on when no `bench peak`
// figure is stored (measured_ceiling, src/system/ceilings.hpp).
//
// Two kinds of figure: a GPU ceiling (HBM copy, GEMM rates, the pinned PCIe transfers) is a
// property of the GPU model and its link, so a measurement on the same model should land within
// the tolerance of ANCHORS.md's figure, and `bench peak` says whether it does. A host-dependent
// figure (pageable transfers, launch latencies, the graph per-node cost) moves with the host's
// CPU, memory, virtualisation and driver: measured on H200 machines it varied by 20-45% between
// allocations and machines (docs/peaks.md), so the report shows ANCHORS.md's figure beside it and
// does not judge it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "aisp/benchmark.hpp"

namespace aisp {

enum class AnchorKind {
  gpu_ceiling,     // judged: should agree within kAnchorTolerance
  host_dependent,  // shown beside the measurement, not judged
};

// A figure of ANCHORS.md: a value or a range ("764-776 TFLOP/s": low 764, high 776).
struct FigureAnchor {
  double low = 0, high = 0;
  AnchorKind kind = AnchorKind::gpu_ceiling;
  std::string source;  // "ANCHORS.md: measured on H200, CUDA 13.0, 2026-11-21; cudaMemcpyAsync ..."

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

// ANCHORS.md's figure that stands for `ceiling` on exactly `hardware_key` (no multi-GPU
// fallback; measured_ceiling adds it), the middle of a range; nullopt when there is none.
std::optional<FigureAnchor> anchor_for_ceiling(Ceiling ceiling, std::string_view hardware_key);

// Whether `measured` lies within the tolerance of the anchor's range.
bool agrees_with_anchor(double measured, const FigureAnchor& anchor,
                        double tolerance = kAnchorTolerance);

}  // namespace aisp
