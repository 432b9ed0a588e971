#include "measure/roofline.hpp"

#include <fmt/format.h>

#include "system/ceilings.hpp"

namespace aisp {
namespace {

struct Term {
  const char* bound;
  double amount;
  Ceiling ceiling;
  double scale;  // converts amount / ceiling value into seconds
};

}  // namespace

std::optional<Roofline> compute_roofline(const Workload& w, double median_ms,
                                         const std::string& hardware_key,
                                         const std::filesystem::path& peaks_dir,
                                         std::string* why_not) {
  const Term terms[] = {
      {"memory", w.bytes, w.memory_ceiling, 1e-9},     // bytes / (GB/s)
      {"compute", w.flops, w.compute_ceiling, 1e-12},  // flops / (TFLOP/s)
      {"launch", w.launches, w.launch_ceiling, 1e-6},  // launches * us
  };
  Roofline best;
  double floor_s = -1;
  for (const Term& t : terms) {
    if (t.amount <= 0) continue;
    if (t.ceiling == Ceiling::none) {
      // A launch count without a launch ceiling is information, not a bound.
      if (std::string_view(t.bound) == "launch") continue;
      if (why_not != nullptr)
        *why_not = fmt::format("the workload's {} term has no ceiling to compare with", t.bound);
      return std::nullopt;
    }
    const auto ceiling = resolve_ceiling(peaks_dir, hardware_key, t.ceiling);
    if (!ceiling || ceiling->value <= 0) {
      if (why_not != nullptr)
        *why_not =
            ceiling_is_host_scoped(t.ceiling)
                ? fmt::format("no measured {} for this host ('{}' in {}; run `aisp bench peak "
                              "--figures host_memory_bandwidth`)",
                              ceiling_name(t.ceiling), host_hardware_key(), peaks_dir.string())
                : fmt::format("no measured {} ceiling for hardware '{}' (run `aisp bench peak`)",
                              ceiling_name(t.ceiling), hardware_key);
      return std::nullopt;
    }
    const double seconds = std::string_view(t.bound) == "launch"
                               ? t.amount * ceiling->value * t.scale
                               : t.amount / ceiling->value * t.scale;
    if (seconds > floor_s) {
      floor_s = seconds;
      best.bound = t.bound;
      best.ceiling = std::string(ceiling_name(t.ceiling));
      best.ceiling_value = ceiling->value;
      best.ceiling_unit = ceiling->unit;
      best.ceiling_source = ceiling->source;
    }
  }
  if (floor_s < 0 || median_ms <= 0) {
    if (why_not != nullptr) *why_not = "the workload declares no bytes, FLOPs or launches";
    return std::nullopt;
  }
  const double seconds = median_ms * 1e-3;
  best.achieved_gbps = w.bytes / seconds * 1e-9;
  best.achieved_tflops = w.flops / seconds * 1e-12;
  best.floor_ms = floor_s * 1e3;
  best.fraction = best.floor_ms / median_ms;
  return best;
}

}  // namespace aisp
