#include "report/profile_format.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp::profile_format {
namespace {

namespace rf = report_format;

// The metrics a one-line summary shows, with their short names.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kHeadline{{
    {kHeadlineMetrics[0], "SM"},
    {kHeadlineMetrics[1], "memory"},
    {kHeadlineMetrics[2], "DRAM"},
    {kHeadlineMetrics[3], "occupancy"},
}};

constexpr std::string_view kDuration = "gpu__time_duration.sum";

std::string headline_metrics(const ProfiledKernel& kernel) {
  std::string text;
  for (const auto& [name, label] : kHeadline) {
    if (const ProfileMetric* metric = find_metric(kernel, name)) {
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", label, format_metric_value(*metric));
    }
  }
  return text;
}

std::string table_cell(std::string_view text) {
  std::string cell;
  for (char c : rf::single_line(text)) {
    cell += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  return cell.empty() ? std::string(rf::kAbsent) : cell;
}

std::string metric_cell(const ProfiledKernel* kernel, std::string_view name) {
  const ProfileMetric* metric = kernel != nullptr ? find_metric(*kernel, name) : nullptr;
  return metric != nullptr ? format_metric_value(*metric) : std::string(rf::kAbsent);
}

std::string per_run(const VariantProfile& variant) {
  return std::isfinite(variant.duration_ms_per_run)
             ? rf::format_duration_ms(variant.duration_ms_per_run)
             : std::string(rf::kAbsent);
}

}  // namespace

const ProfileMetric* find_metric(const ProfiledKernel& kernel, std::string_view name) {
  for (const ProfileMetric& metric : kernel.metrics) {
    if (metric.name == name) {
      return &metric;
    }
  }
  return nullptr;
}

const ProfiledKernel* dominant_kernel(const VariantProfile& variant) {
  const ProfiledKernel* dominant = nullptr;
  double longest = -1;
  for (const ProfiledKernel& kernel : variant.kernels) {
    const ProfileMetric* duration = find_metric(kernel, kDuration);
    const double total = duration != nullptr ? duration->median * kernel.launches : 0;
    if (total > longest) {
      longest = total;
      dominant = &kernel;
    }
  }
  return dominant;
}

std::string format_metric_value(const ProfileMetric& metric) {
  if (!std::isfinite(metric.median)) {
    return std::string(rf::kAbsent);
  }
  if (metric.unit == "ns") {
    return rf::format_duration_ms(metric.median * 1e-6);
  }
  if (metric.unit == "%") {
    return rf::format_percent(metric.median / 100);
  }
  if (metric.unit == "byte") {
    constexpr std::array<std::pair<double, std::string_view>, 4> kPrefixes{
        {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}}};
    for (const auto& [scale, unit] : kPrefixes) {
      if (std::fabs(metric.median) >= scale) {
        return fmt::format("{:.3g} {}", metric.median / scale, unit);
      }
    }
    return fmt::format("{:g} B", metric.median);
  }
  if (metric.unit.empty()) {
    const bool whole =
        metric.median == std::floor(metric.median) && std::fabs(metric.median) < 1e15;
    return whole ? fmt::format("{:.0f}", metric.median) : fmt::format("{:.4g}", metric.median);
  }
  return fmt::format("{:.4g} {}", metric.median, metric.unit);
}

std::string metric_label(std::string_view name) {
  for (const auto& [metric, label] : kHeadline) {
    if (metric == name) {
      return std::string(label);
    }
  }
  return std::string(name);
}

std::string describe_variant(const VariantProfile& variant) {
  if (variant.status != ProfileStatus::collected) {
    return fmt::format("{}: {}", profile_status_name(variant.status), variant.reason);
  }
  std::string text;
  if (std::isfinite(variant.duration_ms_per_run)) {
    text = rf::format_duration_ms(variant.duration_ms_per_run) + " per run, ";
  }
  text +=
      fmt::format("{} kernel{}", variant.kernels.size(), variant.kernels.size() == 1 ? "" : "s");
  if (const ProfiledKernel* kernel = dominant_kernel(variant)) {
    const std::string metrics = headline_metrics(*kernel);
    text += fmt::format("; {}{}{}", kernel->name, metrics.empty() ? "" : ": ", metrics);
  }
  if (!variant.reason.empty()) {
    text += " (" + variant.reason + ")";
  }
  return text;
}

std::string format_profile_line(const PairProfile& profile) {
  std::string line = fmt::format("profile ({} {}) {}", profile.tool, profile.set,
                                 profile_status_name(profile.status));
  std::string variants;
  for (const auto& [role, variant] :
       {std::pair{"baseline", &profile.baseline}, std::pair{"optimized", &profile.optimized}}) {
    if (*variant && (*variant)->status == ProfileStatus::collected) {
      variants +=
          fmt::format("{}{} {}", variants.empty() ? "" : "; ", role, describe_variant(**variant));
    }
  }
  if (!variants.empty()) {
    line += ": " + variants;
  }
  if (!profile.reason.empty()) {
    line += (variants.empty() ? ": " : "; ") + rf::single_line(profile.reason);
  }
  return line;
}

std::string render_profile_markdown(const RunResults& results) {
  const PairProfile* first = nullptr;
  for (const PairResult& pair : results.pairs) {
    if (pair.profile) {
      first = &*pair.profile;
      break;
    }
  }
  if (first == nullptr) {
    return {};
  }
  std::string text = fmt::format(
      "## Profiles (Nsight Compute, set {})\n\nTaken after the timing, in a separate pass: per "
      "variant {} warm-up call{} and {} samples under `ncu --clock-control none`; the medians "
      "above are not from it (docs/profiling.md).\n\n",
      first->set, first->warmup_runs, first->warmup_runs == 1 ? "" : "s", first->samples);
  std::string rows;
  std::string notes;
  for (const PairResult& pair : results.pairs) {
    if (!pair.profile) {
      continue;
    }
    const PairProfile& profile = *pair.profile;
    for (const auto& [role, variant] :
         {std::pair{"baseline", &profile.baseline}, std::pair{"optimized", &profile.optimized}}) {
      if (!*variant || (*variant)->status != ProfileStatus::collected) {
        continue;
      }
      const VariantProfile& v = **variant;
      const ProfiledKernel* kernel = dominant_kernel(v);
      rows += fmt::format(
          "| {} | {} | {} | {} ({} launches) | {} | {} | {} | {} | {} |\n", table_cell(pair.target),
          role, per_run(v), v.kernels.size(), v.launches,
          kernel != nullptr ? table_cell(kernel->name) : std::string(rf::kAbsent),
          metric_cell(kernel, kHeadline[0].first), metric_cell(kernel, kHeadline[1].first),
          metric_cell(kernel, kHeadline[2].first), metric_cell(kernel, kHeadline[3].first));
      if (!v.reason.empty()) {
        notes += fmt::format("- **{}** {}: {}\n", pair.target, role, rf::single_line(v.reason));
      }
    }
    if (profile.status != ProfileStatus::collected) {
      notes += fmt::format("- **{}** profile {}: {}\n", pair.target,
                           profile_status_name(profile.status), rf::single_line(profile.reason));
    }
  }
  if (!rows.empty()) {
    text += "| Target | Variant | Device time per run | Kernels | Top kernel | SM | Memory | DRAM "
            "| Occupancy |\n|:--|:--|--:|:--|:--|--:|--:|--:|--:|\n" +
            rows;
  }
  if (!notes.empty()) {
    text += (rows.empty() ? "" : "\n") + notes;
  }
  return text;
}

}  // namespace aisp::profile_format
