// A result against its ceilings: the fastest the declared workload could run on this hardware
// (bytes over the measured bandwidth, FLOPs over the measured peak, launches over the measured
// per-launch cost; the largest wins) over the time actually measured.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "aisp/benchmark.hpp"
#include "aisp/result.hpp"

namespace aisp {

// nullopt, with the reason in `why_not`, when a term of the workload has no measured ceiling on
// this hardware (a fraction against only some of its resources would mislead).
std::optional<Roofline> compute_roofline(const Workload& workload, double median_ms,
                                         const std::string& hardware_key,
                                         const std::filesystem::path& peaks_dir,
                                         std::string* why_not);

}  // namespace aisp
