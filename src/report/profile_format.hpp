// How the reports show a pair's Nsight Compute profile (PairResult::profile): the line the
// terminal prints after a pair, the markdown summary's "Profiles" section, and the helpers the
// HTML report's per-pair table uses. docs/profiling.md describes the profile itself.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "aisp/result.hpp"

namespace aisp::profile_format {

// The headline metrics every report shows for a kernel, in this order: SM throughput, memory
// throughput, DRAM throughput (% of peak, elapsed) and achieved occupancy (% of peak, active).
inline constexpr std::array<std::string_view, 4> kHeadlineMetrics{
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
};

// The metric `name` of `kernel`; nullptr when it was not collected.
const ProfileMetric* find_metric(const ProfiledKernel& kernel, std::string_view name);

// The kernel that took the most device time (median duration × launches); nullptr when none.
const ProfiledKernel* dominant_kernel(const VariantProfile& variant);

// A metric's value for people: times as durations ("412 µs"), percentages as "93%", sizes with
// an SI prefix ("2.15 GB"), counts as numbers ("1048576"), others with their unit.
std::string format_metric_value(const ProfileMetric& metric);

// The short name of a headline metric ("SM", "memory", "DRAM", "occupancy"), or the metric's own
// name for the others.
std::string metric_label(std::string_view name);

// "531 µs per run, 1 kernel; copy_strided: SM 12%, memory 93%, DRAM 91%, occupancy 85%", or
// "skipped: <reason>" / "failed: <reason>" for a variant that was not collected.
std::string describe_variant(const VariantProfile& variant);

// One line for the terminal after a pair: "profile (minimal) collected: baseline 531 µs per run,
// ...; optimized ..." or the skip or failure reason.
std::string format_profile_line(const PairProfile& profile);

// The markdown summary's "## Profiles (Nsight Compute)" section: a row per profiled variant
// with its device time per run and its dominant kernel's headline metrics, and the pairs whose
// profile was skipped or failed with the reason. Empty when no pair holds a profile.
std::string render_profile_markdown(const RunResults& results);

}  // namespace aisp::profile_format
