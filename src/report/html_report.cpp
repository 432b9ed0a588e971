#include "report/html_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/profile_format.hpp"
#include "report/report_format.hpp"
#include "results/run_input.hpp"

namespace aisp {
namespace {

namespace rf = report_format;
using rf::kAbsent;

// ---------------------------------------------------------------------------------------------
// Text and numbers

std::string esc(std::string_view text) { return html_escape(text); }

// A pixel coordinate.
std::string px(double value) { return fmt::format("{:.1f}", value); }

// `digits` significant digits, no exponent: "4275", "50.6", "0.000859".
std::string significant(double value, int digits = 3) {
  if (!std::isfinite(value)) {
    return std::string(kAbsent);
  }
  if (value == 0) {
    return "0";
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  return fmt::format("{:.{}f}", value, std::max(0, digits - 1 - magnitude));
}

// A measured ceiling as the other reports print it: "4275", "50.6", "0.68".
std::string ceiling_number(double value) {
  return std::fabs(value) >= 1000 ? fmt::format("{:.0f}", value) : fmt::format("{:.4g}", value);
}

// "2.15 GB", "10.7 GFLOP", "512 B".
std::string with_si_prefix(double value, std::string_view unit) {
  if (!std::isfinite(value)) {
    return std::string(kAbsent);
  }
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  std::size_t prefix = 0;
  while (std::fabs(value) >= 999.5 && prefix + 1 < std::size(kPrefixes)) {
    value /= 1000;
    ++prefix;
  }
  return fmt::format("{} {}{}", significant(value), kPrefixes[prefix], unit);
}

// A tick label: "0.5", "2", "100", "0.001", "1e-05".
std::string tick_number(double value) { return fmt::format("{:g}", value); }

std::string manifest_text(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) {
    return {};
  }
  const auto value = object.find(key);
  if (value == object.end() || value->is_null()) {
    return {};
  }
  if (value->is_string()) {
    return value->get<std::string>();
  }
  if (value->is_number() || value->is_boolean()) {
    return value->dump();
  }
  return {};
}

// Where a pair's marks and rows meet: the script highlights every element of one data-pair.
std::string pair_key(std::size_t index) { return fmt::format("p{}", index); }
std::string pair_anchor(std::size_t index) { return fmt::format("pair-{}", index); }

std::string verdict_class(const Speedup& speedup) {
  if (speedup.verdict == "faster") {
    return "faster";
  }
  if (speedup.verdict == "slower") {
    return "slower";
  }
  return "nodiff";
}

// Under the verdict of a pair that moved against its expectation: a red "below expectation" or
// a green "above expectation", the numbers in its title. Nothing otherwise.
std::string expectation_mark(const PairResult& pair) {
  if (!pair.expectation) {
    return {};
  }
  const ExpectationCheck& check = *pair.expectation;
  if (check.verdict != "regression" && check.verdict != "improvement") {
    return {};
  }
  const bool regression = check.verdict == "regression";
  return fmt::format("<div class=\"reason {}\" title=\"{}\">{} expectation ({})</div>",
                     regression ? "slower" : "faster",
                     esc(check.detail + "; recorded: " + check.recorded),
                     regression ? "below" : "above", esc(check.hardware_key));
}

std::string status_class(PairStatus status) {
  switch (status) {
  case PairStatus::passed:
    return "passed";
  case PairStatus::skipped:
    return "skipped";
  case PairStatus::interrupted:
    return "interrupted";
  case PairStatus::failed:
  case PairStatus::timed_out:
  case PairStatus::crashed:
  case PairStatus::quarantined:
    break;
  }
  return "failed";
}

// Why a pair shows no speedup, in a few words: "crashed", "outputs did not verify", "skipped".
std::string quarantine_reason(const PairResult& pair) {
  if (pair.status == PairStatus::passed && !pair.verification.passed) {
    return "outputs did not verify";
  }
  if (pair.status == PairStatus::passed) {
    return "not timed";
  }
  return std::string(pair_status_name(pair.status));
}

// A speedup the log axis can place: shown (the pair passed with verified outputs) and positive.
bool has_plottable_speedup(const PairResult& pair) {
  return rf::shows_speedup(pair) && pair.speedup->value > 0 && pair.speedup->ci_low > 0 &&
         std::isfinite(pair.speedup->value) && std::isfinite(pair.speedup->ci_high);
}

const std::vector<double>& timed_samples(const VariantMeasurement& measurement) {
  return measurement.method == TimingMethod::host_clock ? measurement.host_ms
                                                        : measurement.event_ms;
}

// ---------------------------------------------------------------------------------------------
// Chart geometry

// A logarithmic axis: data values [low, high] onto pixels [from, to].
struct LogAxis {
  double low = 1, high = 10;
  double from = 0, to = 1;
  double at(double value) const {
    const double span = std::log10(high) - std::log10(low);
    return from + (std::log10(value) - std::log10(low)) / span * (to - from);
  }
};

// [low, high] widened by `pad` (a factor) on each side, and to at least `min_ratio` overall.
std::pair<double, double> padded_log_range(double low, double high, double pad, double min_ratio) {
  low /= pad;
  high *= pad;
  if (high / low < min_ratio) {
    const double grow = std::sqrt(min_ratio / (high / low));
    low /= grow;
    high *= grow;
  }
  return {low, high};
}

// Round numbers inside [low, high]: decades when that gives three or more, else 1-2-5 steps,
// else finer.
std::vector<double> log_ticks(double low, double high) {
  static const std::vector<std::vector<double>> kMantissas = {
      {1.0}, {1.0, 2.0, 5.0}, {1.0, 1.5, 2.0, 3.0, 5.0, 7.0}};
  std::vector<double> ticks;
  for (const std::vector<double>& mantissas : kMantissas) {
    ticks.clear();
    const int first = static_cast<int>(std::floor(std::log10(low)));
    const int last = static_cast<int>(std::ceil(std::log10(high)));
    for (int exponent = first; exponent <= last; ++exponent) {
      for (double mantissa : mantissas) {
        const double value = mantissa * std::pow(10.0, exponent);
        if (value >= low * (1 - 1e-9) && value <= high * (1 + 1e-9)) {
          ticks.push_back(value);
        }
      }
    }
    if (ticks.size() >= 3) {
      break;
    }
  }
  return ticks;
}

std::string svg_open(std::string_view chart, std::size_t marks, double width, double height,
                     std::string_view label) {
  return fmt::format("<svg class=\"chart\" data-chart=\"{}\" data-marks=\"{}\" viewBox=\"0 0 {} "
                     "{}\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n",
                     chart, marks, px(width), px(height), px(width), px(height), esc(label));
}

// ---------------------------------------------------------------------------------------------
// Header and summary table

// "on NVIDIA H200", "on no GPU" (a CPU-only machine), or "GPU unknown" without a manifest.
std::string describe_machine(const nlohmann::json& manifest) {
  const std::string gpu = manifest_gpu_name(manifest);
  if (!gpu.empty()) {
    return "on " + gpu;
  }
  return manifest.is_object() && !manifest.empty() ? "on no GPU" : "GPU unknown (no manifest)";
}

std::string render_header(const RunResults& results, const nlohmann::json& manifest) {
  std::string html = fmt::format("<header>\n<h1>aisp run {} <span class=\"gpu\">{}</span></h1>\n",
                                 esc(results.run_id.empty() ? "(no run id)" : results.run_id),
                                 esc(describe_machine(manifest)));
  if (!results.complete) {
    html += "<p class=\"banner\">This run was interrupted: its results are partial. Pairs that "
            "had not finished are missing.</p>\n";
  }
  if (const std::string note = rf::verify_phase_note(results.verify_phase); !note.empty()) {
    html += fmt::format("<p class=\"banner\">{}</p>\n", esc(note));
  }
  html += "<dl class=\"facts\">\n";
  // Long values (the command line, the settings) take a whole row.
  const auto fact = [&html](std::string_view name, const std::string& value, bool code = false,
                            bool wide = false) {
    if (value.empty()) {
      return;
    }
    html += fmt::format("<div{}><dt>{}</dt><dd>{}{}{}</dd></div>\n", wide ? " class=\"wide\"" : "",
                        name, code ? "<code>" : "", esc(value), code ? "</code>" : "");
  };
  fact("Pairs", rf::format_counts(rf::count_statuses(results)));
  fact("Verification phase", std::string(verify_phase_name(results.verify_phase)));
  fact("Started", results.started_at);
  fact("Finished", results.finished_at);
  fact("Hardware key", manifest_hardware_key(manifest), true);
  std::string commit = manifest_git_commit(manifest);
  if (!commit.empty() && manifest_text(manifest, "git_dirty") == "true") {
    commit += " (with uncommitted changes)";
  }
  fact("Commit", commit, true, true);
  fact("Driver", manifest_text(manifest, "nvidia_driver_version"));
  std::string cuda = manifest_text(manifest, "cuda_runtime_version");
  if (manifest.is_object() && manifest.contains("build")) {
    const std::string toolkit = manifest_text(manifest["build"], "cuda_toolkit");
    if (!toolkit.empty()) {
      cuda = "toolkit " + toolkit + (cuda.empty() ? "" : ", runtime " + cuda);
    }
  }
  fact("CUDA", cuda);
  fact("Host", manifest_text(manifest, "cpu_model"));
  fact("Command", manifest_text(manifest, "command_line"), true, true);
  if (manifest.is_object() && manifest.contains("settings") && manifest["settings"].is_object()) {
    std::string settings;
    for (const auto& [key, value] : manifest["settings"].items()) {
      if (value.is_primitive()) {
        settings += (settings.empty() ? "" : ", ") + key + "=" +
                    (value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
    fact("Settings", settings, true, true);
  }
  html += "</dl>\n</header>\n";
  return html;
}

std::string render_summary_table(const RunResults& results) {
  const std::string ci = rf::confidence_label(results);
  std::string html = fmt::format(
      "<section id=\"summary\">\n<h2>Summary</h2>\n"
      "<p class=\"note\">Times are medians per run. A speedup (baseline median / optimized "
      "median) and a roofline fraction are shown only for pairs that passed with verified "
      "outputs; the verdict says whether the {} excludes 1. Click a column to sort.</p>\n"
      "<table id=\"summary-table\" class=\"sortable\">\n<thead><tr>"
      "<th data-type=\"text\">Target</th><th data-type=\"text\">Status</th>"
      "<th data-type=\"number\" class=\"num\">Baseline median</th>"
      "<th data-type=\"number\" class=\"num\">Optimized median</th>"
      "<th data-type=\"number\">Speedup [{}]</th><th data-type=\"text\">Verdict</th>"
      "<th data-type=\"number\">Roofline (optimized)</th>"
      "<th data-type=\"text\">Verification</th></tr></thead>\n<tbody>\n",
      ci, esc(ci));
  for (std::size_t i = 0; i < results.pairs.size(); ++i) {
    const PairResult& pair = results.pairs[i];
    const bool shown = rf::shows_speedup(pair);
    const auto median_cell = [](const std::optional<VariantMeasurement>& measurement) {
      if (!measurement) {
        return fmt::format("<td class=\"num absent\" data-sort=\"\">{}</td>", kAbsent);
      }
      return fmt::format("<td class=\"num\" data-sort=\"{}\">{}</td>", measurement->stats.median,
                         esc(rf::format_duration_ms(measurement->stats.median)));
    };
    html += fmt::format("<tr data-pair=\"{}\"><td><a href=\"#{}\">{}</a>", pair_key(i),
                        pair_anchor(i), esc(pair.target));
    if (pair.status != PairStatus::passed || !pair.verification.passed) {
      const std::string why =
          pair.status == PairStatus::passed
              ? "outputs did not verify: " + rf::format_verification(pair.verification)
              : rf::describe_outcome(pair, true);
      html += fmt::format("<div class=\"reason\">{}</div>", esc(rf::single_line(why, 160)));
    }
    html += fmt::format("</td><td><span class=\"badge {}\">{}</span></td>",
                        status_class(pair.status), esc(pair_status_name(pair.status)));
    html += median_cell(pair.baseline) + median_cell(pair.optimized);
    if (shown) {
      html +=
          fmt::format("<td data-sort=\"{}\">{}</td><td class=\"{}\">{}{}</td>", pair.speedup->value,
                      esc(rf::format_speedup(*pair.speedup)), verdict_class(*pair.speedup),
                      esc(pair.speedup->verdict), expectation_mark(pair));
    } else {
      html += fmt::format("<td class=\"absent\" data-sort=\"\">{}</td><td class=\"absent\">{}</td>",
                          kAbsent, kAbsent);
    }
    if (shown && pair.roofline) {
      html += fmt::format("<td data-sort=\"{}\">{}</td>", pair.roofline->fraction,
                          esc(rf::format_roofline(*pair.roofline, true)));
    } else {
      html += fmt::format("<td class=\"absent\" data-sort=\"\">{}</td>", kAbsent);
    }
    html += fmt::format(
        "<td class=\"{}\">{}</td></tr>\n",
        pair.verification.checks.empty() || pair.verification.passed ? "" : "failed-text",
        esc(rf::format_verification(pair.verification)));
  }
  html += "</tbody>\n</table>\n</section>\n";
  return html;
}

// ---------------------------------------------------------------------------------------------
// Speedups: one row per pair, a dot at the speedup and whiskers over its confidence interval,
// on a log axis (2× faster and 2× slower are equally far from 1×).

std::string render_speedup_chart(const RunResults& results) {
  std::string html = "<section id=\"speedups\">\n<h2>Speedups</h2>\n";
  if (results.pairs.empty()) {
    return html + "<p class=\"empty\">The run holds no pairs.</p>\n</section>\n";
  }
  double low = 1, high = 1;
  std::size_t marks = 0;
  std::size_t longest_target = 0;
  for (const PairResult& pair : results.pairs) {
    longest_target = std::max(longest_target, rf::display_width(pair.target));
    if (!has_plottable_speedup(pair)) {
      continue;
    }
    for (double value : {pair.speedup->value, pair.speedup->ci_low, pair.speedup->ci_high}) {
      if (std::isfinite(value) && value > 0) {
        low = std::min(low, value);
        high = std::max(high, value);
      }
    }
    ++marks;
  }
  std::tie(low, high) = padded_log_range(low, high, 1.25, 4.0);

  const double label_width =
      std::clamp(static_cast<double>(longest_target) * 7.2 + 16, 120.0, 300.0);
  const double value_width = 190;
  const double width = 960;
  const double row_height = 26, top = 30, bottom = 40;
  const double height = top + row_height * static_cast<double>(results.pairs.size()) + bottom;
  const LogAxis axis{low, high, label_width + 10, width - value_width};
  const double plot_bottom = top + row_height * static_cast<double>(results.pairs.size());

  html += "<p class=\"note\">Each dot is median(baseline) / median(optimized); the whiskers span "
          "its bootstrap confidence interval (often narrower than the dot). Log scale: right of "
          "the 1× line the optimized variant is faster. Pairs that did not pass with verified "
          "outputs show no speedup.</p>\n";
  html += svg_open("speedups", marks, width, height,
                   "Speedup of each pair with its confidence interval, log scale");
  for (std::size_t row = 0; row < results.pairs.size(); row += 2) {
    html += fmt::format("<rect class=\"band\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                        px(top + row_height * static_cast<double>(row)), px(width), px(row_height));
  }
  for (double tick : log_ticks(low, high)) {
    const double x = axis.at(tick);
    html +=
        fmt::format("<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
                    "<text class=\"tick\" x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}×</text>\n",
                    px(x), px(top), px(plot_bottom), px(plot_bottom + 16), tick_number(tick));
  }
  html += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">speedup "
                      "(log scale)</text>\n",
                      px((axis.from + axis.to) / 2), px(plot_bottom + 34));
  const double one = axis.at(1.0);
  html += fmt::format("<line class=\"unity\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
                      "<text class=\"unity-label\" x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">1× "
                      "(no change)</text>\n",
                      px(one), px(top - 6), px(plot_bottom), px(top - 10));

  for (std::size_t i = 0; i < results.pairs.size(); ++i) {
    const PairResult& pair = results.pairs[i];
    const double y = top + row_height * (static_cast<double>(i) + 0.5);
    html += fmt::format(
        "<g class=\"row\" data-pair=\"{}\"><a href=\"#{}\"><text class=\"label\" "
        "x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text></a>",
        pair_key(i), pair_anchor(i), px(label_width), px(y), esc(pair.target));
    if (has_plottable_speedup(pair)) {
      const Speedup& speedup = *pair.speedup;
      const double x_low = axis.at(speedup.ci_low), x_high = axis.at(speedup.ci_high);
      const std::string verdict = verdict_class(speedup);
      html +=
          fmt::format("<line class=\"whisker {0}\" x1=\"{1}\" x2=\"{2}\" y1=\"{3}\" y2=\"{3}\"/>"
                      "<line class=\"whisker {0}\" x1=\"{1}\" x2=\"{1}\" y1=\"{4}\" y2=\"{5}\"/>"
                      "<line class=\"whisker {0}\" x1=\"{2}\" x2=\"{2}\" y1=\"{4}\" y2=\"{5}\"/>",
                      verdict, px(x_low), px(x_high), px(y), px(y - 6), px(y + 6));
      html += fmt::format("<circle class=\"dot {}\" data-mark=\"speedup\" cx=\"{}\" cy=\"{}\" "
                          "r=\"5\"><title>{}: {} ({}), {}</title></circle>",
                          verdict, px(axis.at(speedup.value)), px(y), esc(pair.target),
                          esc(rf::format_speedup(speedup)), esc(rf::confidence_label(results)),
                          esc(speedup.verdict));
      html += fmt::format(
          "<text class=\"value {}\" x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>",
          verdict, px(axis.to + 12), px(y), esc(rf::format_speedup(speedup)));
    } else {
      html +=
          fmt::format("<text class=\"absent\" x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">no "
                      "speedup: {}</text>",
                      px(axis.from + 8), px(y), esc(quarantine_reason(pair)));
    }
    html += "</g>\n";
  }
  html += "</svg>\n</section>\n";
  return html;
}

// ---------------------------------------------------------------------------------------------
// Roofline: arithmetic intensity (FLOP/byte) against achieved FLOP/s, log-log, under the
// ceilings the run's pairs were measured against.

struct RooflinePoint {
  std::size_t pair_index = 0;
  std::string target;
  double intensity = 0;  // FLOP/byte
  double optimized_tflops = 0;
  std::optional<double> baseline_tflops;
  std::string ceiling;  // the ceiling the optimized variant's fraction is against
};

struct CeilingLine {
  std::string name;
  double value = 0;  // GB/s or TFLOP/s
};

void add_ceiling(std::vector<CeilingLine>& lines, const Roofline& roofline) {
  for (const CeilingLine& line : lines) {
    if (line.name == roofline.ceiling) {
      return;
    }
  }
  lines.push_back({roofline.ceiling, roofline.ceiling_value});
}

constexpr const char* kPalette[] = {"#0969da", "#bf3989", "#1a7f37", "#9a6700",
                                    "#8250df", "#cf222e", "#1b7c83", "#6e7781"};

std::string render_roofline_chart(const RunResults& results) {
  std::string html = "<section id=\"roofline\">\n<h2>Roofline</h2>\n";
  std::vector<RooflinePoint> points;
  std::vector<CeilingLine> bandwidths, computes;
  bool any_gpu_point = false;
  for (std::size_t i = 0; i < results.pairs.size(); ++i) {
    const PairResult& pair = results.pairs[i];
    if (!rf::shows_speedup(pair) || !pair.roofline || pair.bytes <= 0 || pair.flops <= 0 ||
        pair.roofline->bound == "launch" || !(pair.roofline->achieved_tflops > 0)) {
      continue;
    }
    RooflinePoint point;
    point.pair_index = i;
    point.target = pair.target;
    point.intensity = pair.flops / pair.bytes;
    point.optimized_tflops = pair.roofline->achieved_tflops;
    if (pair.baseline_roofline && pair.baseline_roofline->achieved_tflops > 0) {
      point.baseline_tflops = pair.baseline_roofline->achieved_tflops;
    } else if (pair.baseline && pair.baseline->stats.median > 0) {
      point.baseline_tflops = pair.flops / (pair.baseline->stats.median * 1e-3) * 1e-12;
    }
    point.ceiling = pair.roofline->ceiling;
    points.push_back(point);
    any_gpu_point =
        any_gpu_point || (pair.optimized && pair.optimized->method != TimingMethod::host_clock);
    for (const std::optional<Roofline>* roofline : {&pair.roofline, &pair.baseline_roofline}) {
      if (!*roofline || !((*roofline)->ceiling_value > 0)) {
        continue;
      }
      if ((*roofline)->ceiling_unit == "GB/s") {
        add_ceiling(bandwidths, **roofline);
      } else if ((*roofline)->ceiling_unit == "TFLOP/s") {
        add_ceiling(computes, **roofline);
      }
    }
  }
  if (points.empty()) {
    return html + "<p class=\"empty\">No pair here has both FLOPs and bytes with a measured "
                  "ceiling (memory-only and launch-bound pairs are on the ceiling chart below), "
                  "so there is no roofline to draw.</p>\n</section>\n";
  }
  // Device memory is every GPU kernel's memory roof unless its workload names another, so the
  // HBM figure the run measured against elsewhere is drawn for GPU points too.
  if (any_gpu_point) {
    for (const PairResult& pair : results.pairs) {
      if (rf::shows_speedup(pair) && pair.roofline && pair.roofline->ceiling == "hbm_bandwidth" &&
          pair.roofline->ceiling_unit == "GB/s" && pair.roofline->ceiling_value > 0) {
        add_ceiling(bandwidths, *pair.roofline);
      }
    }
  }
  const auto by_value = [](const CeilingLine& a, const CeilingLine& b) {
    return a.value > b.value;
  };
  std::sort(bandwidths.begin(), bandwidths.end(), by_value);
  std::sort(computes.begin(), computes.end(), by_value);

  // Ranges: every point, every ridge point, and the compute ceilings.
  double x_low = points.front().intensity, x_high = x_low;
  double y_low = points.front().optimized_tflops, y_high = y_low;
  for (const RooflinePoint& point : points) {
    x_low = std::min(x_low, point.intensity);
    x_high = std::max(x_high, point.intensity);
    for (double y :
         {point.optimized_tflops, point.baseline_tflops.value_or(point.optimized_tflops)}) {
      y_low = std::min(y_low, y);
      y_high = std::max(y_high, y);
    }
  }
  for (const CeilingLine& compute : computes) {
    y_high = std::max(y_high, compute.value);
    if (!bandwidths.empty()) {
      const double ridge = compute.value / (bandwidths.front().value * 1e-3);
      x_low = std::min(x_low, ridge);
      x_high = std::max(x_high, ridge);
    }
  }
  std::tie(x_low, x_high) = padded_log_range(x_low, x_high, 4.0, 100.0);
  std::tie(y_low, y_high) = padded_log_range(y_low, y_high, 2.0, 100.0);

  const double width = 960, height = 440;
  const double left = 80, right = 40, top = 20, bottom = 56;
  const LogAxis x_axis{x_low, x_high, left, width - right};
  const LogAxis y_axis{y_low, y_high, height - bottom, top};

  html += "<p class=\"note\">Each pair with FLOPs and bytes is placed at its arithmetic "
          "intensity (FLOPs / bytes per run; the same for both variants) and the FLOP rate it "
          "achieved: a hollow dot for the baseline variant, a filled one for the optimized, "
          "joined by an arrow. The lines are the measured ceilings the run's results name: "
          "bandwidth as a slope (FLOP/s = bandwidth × intensity), compute as a flat line; the "
          "solid line is the roof, the lowest of the highest ones. Each result records only the "
          "ceiling that binds it, so a roof part that no pair here was measured against is not "
          "drawn.</p>\n";
  html += svg_open("roofline", points.size(), width, height,
                   "Roofline: arithmetic intensity against achieved FLOP/s, log-log");
  html += fmt::format("<defs><clipPath id=\"roofline-plot\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
                      "height=\"{}\"/></clipPath></defs>\n",
                      px(left), px(top), px(width - left - right), px(height - top - bottom));
  for (double tick : log_ticks(x_low, x_high)) {
    html +=
        fmt::format("<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
                    "<text class=\"tick\" x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                    px(x_axis.at(tick)), px(top), px(height - bottom), px(height - bottom + 16),
                    tick_number(tick));
  }
  for (double tick : log_ticks(y_low, y_high)) {
    html += fmt::format("<line class=\"grid\" x1=\"{1}\" x2=\"{2}\" y1=\"{0}\" y2=\"{0}\"/>"
                        "<text class=\"tick\" x=\"{3}\" y=\"{0}\" text-anchor=\"end\" "
                        "dominant-baseline=\"middle\">{4}</text>\n",
                        px(y_axis.at(tick)), px(left), px(width - right), px(left - 6),
                        tick_number(tick));
  }
  html += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">"
                      "arithmetic intensity (FLOP/byte, log scale)</text>\n",
                      px((left + width - right) / 2), px(height - 14));
  html += fmt::format("<text class=\"axis-title\" transform=\"translate({},{}) rotate(-90)\" "
                      "text-anchor=\"middle\">achieved TFLOP/s (log scale)</text>\n",
                      px(18), px((top + height - bottom) / 2));

  // The ceilings, clipped to the plot. Bandwidth B GB/s reaches B × I / 1000 TFLOP/s at
  // intensity I.
  html += "<g clip-path=\"url(#roofline-plot)\">\n";
  const double top_compute = computes.empty() ? 0 : computes.front().value;
  const double top_bandwidth = bandwidths.empty() ? 0 : bandwidths.front().value;
  for (std::size_t i = 0; i < bandwidths.size(); ++i) {
    const double bandwidth = bandwidths[i].value;
    const double end = top_compute > 0 ? top_compute / (bandwidth * 1e-3) : x_high;
    const double x0 = x_low, x1 = std::min(end, x_high);
    const double y0 = bandwidth * x0 * 1e-3, y1 = bandwidth * x1 * 1e-3;
    html += fmt::format("<line class=\"ceiling{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                        i == 0 ? " roof" : "", px(x_axis.at(x0)), px(y_axis.at(y0)),
                        px(x_axis.at(x1)), px(y_axis.at(y1)));
    // The label sits on the visible part of the slope, near its start, turned to its angle.
    const double visible_from = std::max(x0, y_low / (bandwidth * 1e-3));
    const double visible_to = std::min(x1, y_high / (bandwidth * 1e-3));
    if (!(visible_from < visible_to)) {
      continue;
    }
    const double label_x =
        std::pow(10.0, std::log10(visible_from) +
                           0.08 * (std::log10(visible_to) - std::log10(visible_from)));
    const double angle = std::atan2(y_axis.at(y1) - y_axis.at(y0), x_axis.at(x1) - x_axis.at(x0)) *
                         180.0 / 3.14159265358979;
    html +=
        fmt::format("<text class=\"ceiling-label\" transform=\"translate({},{}) rotate({:.1f})\" "
                    "dy=\"-5\">{} {} GB/s</text>\n",
                    px(x_axis.at(label_x)), px(y_axis.at(bandwidth * label_x * 1e-3)), angle,
                    esc(bandwidths[i].name), ceiling_number(bandwidth));
  }
  for (std::size_t i = 0; i < computes.size(); ++i) {
    const double compute = computes[i].value;
    const double start =
        top_bandwidth > 0 ? std::max(x_low, compute / (top_bandwidth * 1e-3)) : x_low;
    html += fmt::format("<line class=\"ceiling{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                        i == 0 ? " roof" : "", px(x_axis.at(start)), px(y_axis.at(compute)),
                        px(x_axis.at(x_high)), px(y_axis.at(compute)));
    html += fmt::format("<text class=\"ceiling-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" "
                        "dy=\"-5\">{} {} TFLOP/s</text>\n",
                        px(width - right - 6), px(y_axis.at(compute)), esc(computes[i].name),
                        ceiling_number(compute));
  }
  html += "</g>\n";

  for (std::size_t i = 0; i < points.size(); ++i) {
    const RooflinePoint& point = points[i];
    const std::string color = kPalette[i % std::size(kPalette)];
    const double x = x_axis.at(point.intensity);
    const double y = y_axis.at(point.optimized_tflops);
    html += fmt::format("<g class=\"point\" data-pair=\"{}\">", pair_key(point.pair_index));
    if (point.baseline_tflops) {
      const double y_base = y_axis.at(*point.baseline_tflops);
      if (std::fabs(y_base - y) > 12) {
        const double direction = y < y_base ? 1.0 : -1.0;  // toward the optimized dot
        // A vertical arrow (both variants share the workload, so the intensity) whose head
        // stops short of the optimized dot.
        const double tip = y + direction * 7;
        html += fmt::format("<line class=\"move\" stroke=\"{0}\" x1=\"{1}\" y1=\"{2}\" "
                            "x2=\"{1}\" y2=\"{3}\"/><path fill=\"{0}\" d=\"M{1},{4} L{5},{6} "
                            "L{7},{6} z\"/>",
                            color, px(x), px(y_base - direction * 5.5), px(tip + direction * 6),
                            px(tip), px(x - 4), px(tip + direction * 7), px(x + 4));
      }
      html += fmt::format("<circle class=\"baseline-dot\" stroke=\"{}\" cx=\"{}\" cy=\"{}\" "
                          "r=\"5\"><title>{} baseline variant: {} TFLOP/s at {} FLOP/byte</title>"
                          "</circle>",
                          color, px(x), px(y_base), esc(point.target),
                          significant(*point.baseline_tflops), significant(point.intensity));
    }
    html += fmt::format("<circle class=\"optimized-dot\" data-mark=\"roofline\" fill=\"{}\" "
                        "cx=\"{}\" cy=\"{}\" r=\"5.5\"><title>{} optimized variant: {} TFLOP/s at "
                        "{} FLOP/byte; fraction of {}</title></circle>",
                        color, px(x), px(y), esc(point.target), significant(point.optimized_tflops),
                        significant(point.intensity), esc(point.ceiling));
    html += fmt::format("<text class=\"point-label\" x=\"{}\" y=\"{}\" fill=\"{}\" "
                        "dominant-baseline=\"middle\">{}</text></g>\n",
                        px(x + 10), px(y), color, esc(point.target));
  }
  html += "</svg>\n";
  if (bandwidths.empty()) {
    html += "<p class=\"note\">No bandwidth ceiling binds a pair plotted here, so the roof's "
            "slope is not drawn: only compute ceilings are.</p>\n";
  }
  if (computes.empty()) {
    html += "<p class=\"note\">No compute ceiling binds a pair plotted here, so the roof's flat "
            "part is not drawn: only bandwidth ceilings are.</p>\n";
  }
  return html + "</section>\n";
}

// ---------------------------------------------------------------------------------------------
// Against the ceiling: for every pair with a roofline, the fraction of its binding ceiling each
// variant reached. For a memory-bound pair that is achieved bandwidth / measured bandwidth.

std::string achieved_text(const PairResult& pair, const Roofline& roofline) {
  if (roofline.bound == "memory") {
    return significant(roofline.achieved_gbps) + " GB/s achieved";
  }
  if (roofline.bound == "compute") {
    return significant(roofline.achieved_tflops) + " TFLOP/s achieved";
  }
  if (roofline.bound == "launch") {
    return fmt::format("floor {} for {:g} launches", rf::format_duration_ms(roofline.floor_ms),
                       pair.launches);
  }
  return "floor " + rf::format_duration_ms(roofline.floor_ms);
}

std::string render_ceiling_chart(const RunResults& results) {
  std::string html = "<section id=\"ceilings\">\n<h2>Against the ceiling</h2>\n";
  std::vector<std::size_t> rows;
  double scale_max = 1.0;
  std::size_t longest_target = 0;
  for (std::size_t i = 0; i < results.pairs.size(); ++i) {
    const PairResult& pair = results.pairs[i];
    if (rf::shows_speedup(pair) && pair.roofline && std::isfinite(pair.roofline->fraction)) {
      rows.push_back(i);
      scale_max = std::max(scale_max, pair.roofline->fraction);
      if (pair.baseline_roofline && std::isfinite(pair.baseline_roofline->fraction)) {
        scale_max = std::max(scale_max, pair.baseline_roofline->fraction);
      }
      longest_target = std::max(longest_target, rf::display_width(pair.target));
    }
  }
  if (rows.empty()) {
    return html + "<p class=\"empty\">No pair here passed with a roofline: there is no measured "
                  "ceiling to compare with.</p>\n</section>\n";
  }
  html += "<p class=\"note\">How close each variant came to the ceiling that bounds its workload "
          "(the fastest the measured bandwidth, compute rate or launch cost allows, over the "
          "measured median). For memory-bound pairs this is the bandwidth chart: achieved / "
          "measured bandwidth. Thin grey bar: baseline variant; thick bar: optimized.</p>\n";
  const double label_width =
      std::clamp(static_cast<double>(longest_target) * 7.2 + 16, 120.0, 300.0);
  const double width = 960, value_width = 330;
  const double row_height = 40, top = 10, bottom = 30;
  const double plot_left = label_width + 10, plot_right = width - value_width;
  const double plot_bottom = top + row_height * static_cast<double>(rows.size());
  const double height = plot_bottom + bottom;
  const auto x_at = [&](double fraction) {
    return plot_left + std::clamp(fraction, 0.0, scale_max) / scale_max * (plot_right - plot_left);
  };
  html += svg_open("ceilings", rows.size(), width, height,
                   "Fraction of the binding ceiling reached by each variant");
  for (int percent = 0; percent <= static_cast<int>(scale_max * 100 + 1e-9); percent += 25) {
    const double x = x_at(percent / 100.0);
    html +=
        fmt::format("<line class=\"{5}\" x1=\"{2}\" x2=\"{2}\" y1=\"{0}\" y2=\"{1}\"/>"
                    "<text class=\"tick\" x=\"{2}\" y=\"{3}\" text-anchor=\"middle\">{4}%</text>\n",
                    px(top), px(plot_bottom), px(x), px(plot_bottom + 16), percent,
                    percent == 100 ? "unity" : "grid");
  }
  for (std::size_t row = 0; row < rows.size(); ++row) {
    const PairResult& pair = results.pairs[rows[row]];
    const Roofline& roofline = *pair.roofline;
    const double y = top + row_height * static_cast<double>(row);
    const double middle = y + row_height / 2;
    html += fmt::format(
        "<g class=\"row\" data-pair=\"{}\"><a href=\"#{}\"><text class=\"label\" "
        "x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text></a>",
        pair_key(rows[row]), pair_anchor(rows[row]), px(label_width), px(middle), esc(pair.target));
    html += fmt::format("<rect class=\"track\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"22\"/>",
                        px(plot_left), px(middle - 11), px(plot_right - plot_left));
    if (pair.baseline_roofline && std::isfinite(pair.baseline_roofline->fraction)) {
      html += fmt::format(
          "<rect class=\"bar-baseline\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"6\">"
          "<title>{} baseline variant: {}</title></rect>",
          px(plot_left), px(middle - 11), px(x_at(pair.baseline_roofline->fraction) - plot_left),
          esc(pair.target), esc(rf::format_roofline(*pair.baseline_roofline, true)));
    }
    html += fmt::format("<rect class=\"bar-optimized{}\" data-mark=\"ceiling\" x=\"{}\" y=\"{}\" "
                        "width=\"{}\" height=\"13\"><title>{} optimized variant: {}</title></rect>",
                        roofline.fraction > 1 ? " beyond" : "", px(plot_left), px(middle - 3),
                        px(x_at(roofline.fraction) - plot_left), esc(pair.target),
                        esc(rf::format_roofline(roofline, true)));
    std::string second_line = achieved_text(pair, roofline);
    if (pair.baseline_roofline) {
      second_line += "; baseline variant " + rf::format_percent(pair.baseline_roofline->fraction);
    }
    html +=
        fmt::format("<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>"
                    "<text class=\"value-detail\" x=\"{}\" y=\"{}\">{}</text></g>\n",
                    px(plot_right + 12), px(middle - 3), esc(rf::format_roofline(roofline, true)),
                    px(plot_right + 12), px(middle + 12), esc(second_line));
  }
  html += "</svg>\n</section>\n";
  return html;
}

// ---------------------------------------------------------------------------------------------
// Per-pair detail

std::string row(std::string_view name, const std::string& value_html) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", name, value_html);
}

std::string two_column_row(std::string_view name, const std::string& baseline_html,
                           const std::string& optimized_html) {
  return fmt::format("<tr><th>{}</th><td>{}</td><td>{}</td></tr>\n", name, baseline_html,
                     optimized_html);
}

// A histogram of one variant's samples: is the median a typical time, or one mode of several?
std::string render_histogram(const VariantMeasurement& measurement, std::string_view role) {
  const std::vector<double>& samples = timed_samples(measurement);
  if (samples.size() < 2) {
    return fmt::format("<p class=\"empty\">{}: no samples stored.</p>", role);
  }
  const auto [min_it, max_it] = std::minmax_element(samples.begin(), samples.end());
  const double low = *min_it, high = *max_it;
  const std::size_t bins =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::sqrt(samples.size())), 8, 40);
  std::vector<std::size_t> counts(bins, 0);
  for (double sample : samples) {
    std::size_t bin =
        high > low ? static_cast<std::size_t>((sample - low) / (high - low) * bins) : 0;
    counts[std::min(bin, bins - 1)]++;
  }
  const std::size_t tallest = *std::max_element(counts.begin(), counts.end());
  const double width = 440, height = 120, left = 10, right = 10, top = 18, bottom = 30;
  const double plot_width = width - left - right, plot_height = height - top - bottom;
  std::size_t bars = 0;
  std::string marks;
  for (std::size_t bin = 0; bin < bins; ++bin) {
    if (counts[bin] == 0) {
      continue;
    }
    const double bar_height =
        plot_height * static_cast<double>(counts[bin]) / static_cast<double>(tallest);
    marks += fmt::format(
        "<rect class=\"bin\" data-mark=\"bin\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\"><title>{} samples</title></rect>",
        px(left + plot_width * static_cast<double>(bin) / static_cast<double>(bins)),
        px(top + plot_height - bar_height),
        px(std::max(1.0, plot_width / static_cast<double>(bins) - 1)), px(bar_height), counts[bin]);
    ++bars;
  }
  // The median of the samples drawn (all of them, unless a file was trimmed), so the line sits
  // inside the histogram it annotates.
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t middle = sorted.size() / 2;
  const double median =
      sorted.size() % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const double median_x =
      high > low ? left + (median - low) / (high - low) * plot_width : left + plot_width / 2;
  std::string html =
      svg_open("samples", bars, width, height, std::string(role) + " samples histogram");
  html +=
      fmt::format("<text class=\"chart-title\" x=\"{}\" y=\"12\">{}: {} samples ({})</text>",
                  px(left), esc(role), samples.size(),
                  measurement.method == TimingMethod::host_clock ? "host clock" : "device time");
  html += marks;
  html += fmt::format("<line class=\"median\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>",
                      px(std::clamp(median_x, left, left + plot_width)), px(top),
                      px(top + plot_height));
  html += fmt::format(
      "<text class=\"tick\" x=\"{}\" y=\"{}\">{}</text>"
      "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
      "<text class=\"tick median-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">median {}</text>",
      px(left), px(height - 14), esc(rf::format_duration_ms(low)), px(left + plot_width),
      px(height - 14), esc(rf::format_duration_ms(high)),
      px(std::clamp(median_x, left + 60, left + plot_width - 60)), px(height - 2),
      esc(rf::format_duration_ms(median)));
  return html + "</svg>\n";
}

std::string timing_table(const PairResult& pair) {
  const auto cell = [&pair](const std::optional<VariantMeasurement>& measurement,
                            const auto& value_of) -> std::string {
    return measurement ? value_of(*measurement) : std::string(kAbsent);
  };
  const auto add = [&](std::string_view name, const auto& value_of) {
    return two_column_row(name, cell(pair.baseline, value_of), cell(pair.optimized, value_of));
  };
  const auto duration = [](double SampleStats::*field) {
    return [field](const VariantMeasurement& m) {
      return esc(rf::format_duration_ms(m.stats.*field));
    };
  };
  std::string html = "<table class=\"detail\"><caption>Timing (per run)</caption>\n"
                     "<tr><th></th><th>Baseline</th><th>Optimized</th></tr>\n";
  html += add("Variant",
              [](const VariantMeasurement& m) { return "<code>" + esc(m.variant) + "</code>"; });
  html += add("Method", [](const VariantMeasurement& m) {
    std::string text = esc(timing_method_name(m.method));
    if (m.method == TimingMethod::graph_replay) {
      text += fmt::format(" ({} runs per sample, {} rotating input sets)", m.runs_per_sample,
                          m.rotating_sets);
    }
    return text;
  });
  html += add("Samples", [](const VariantMeasurement& m) {
    std::string text = fmt::format("{}", m.stats.count);
    const std::size_t stored = timed_samples(m).size();
    if (stored != m.stats.count) {
      text += fmt::format(" ({} stored)", stored);
    }
    return text;
  });
  html += add("Median", duration(&SampleStats::median));
  html += add("Mean", duration(&SampleStats::mean));
  html += add("Trimmed mean (10%)", duration(&SampleStats::trimmed_mean));
  html += add("Min", duration(&SampleStats::min));
  html += add("p05 – p95", [](const VariantMeasurement& m) {
    return esc(rf::format_duration_ms(m.stats.p05) + " – " + rf::format_duration_ms(m.stats.p95));
  });
  html += add("p25 – p75", [](const VariantMeasurement& m) {
    return esc(rf::format_duration_ms(m.stats.p25) + " – " + rf::format_duration_ms(m.stats.p75));
  });
  html += add("p99", duration(&SampleStats::p99));
  html += add("Max", duration(&SampleStats::max));
  html += add("Noise (stddev / mean)", [](const VariantMeasurement& m) {
    return esc(rf::format_percent(m.stats.relative_noise));
  });
  html += add("Robust noise (MAD)", [](const VariantMeasurement& m) {
    return esc(rf::format_percent(m.stats.robust_noise));
  });
  html += add("Host-clock median", [](const VariantMeasurement& m) {
    return esc(rf::format_duration_ms(m.host_stats.median));
  });
  html += add("Stopped", [](const VariantMeasurement& m) {
    return fmt::format("{}{}", m.converged ? "" : "<span class=\"warn\">not converged:</span> ",
                       esc(m.stop_reason.empty() ? "(no reason recorded)" : m.stop_reason));
  });
  const bool marked = (pair.baseline && !pair.baseline->marks.empty()) ||
                      (pair.optimized && !pair.optimized->marks.empty());
  if (marked) {  // ctx.mark points: time from the start of run(), median [p05, p95]
    html += add("Marks (from the start of run())", [](const VariantMeasurement& m) {
      if (m.marks.empty()) {
        return std::string(kAbsent);
      }
      std::string text;
      for (const MarkMeasurement& mark : m.marks) {
        text += fmt::format("{}<code>{}</code> {} [{}, {}]", text.empty() ? "" : "<br>",
                            esc(mark.name), esc(rf::format_duration_ms(mark.stats.median)),
                            esc(rf::format_duration_ms(mark.stats.p05)),
                            esc(rf::format_duration_ms(mark.stats.p95)));
      }
      return text;
    });
  }
  return html + "</table>\n";
}

std::string roofline_cell(const std::optional<Roofline>& roofline) {
  if (!roofline) {
    return std::string(kAbsent);
  }
  std::string html = esc(rf::format_roofline(*roofline, true));
  html += fmt::format("<br><span class=\"small\">{} bound; floor {}; achieved {} GB/s, {} "
                      "TFLOP/s</span>",
                      esc(roofline->bound), esc(rf::format_duration_ms(roofline->floor_ms)),
                      significant(roofline->achieved_gbps), significant(roofline->achieved_tflops));
  return html;
}

std::string gpu_state_table(const PairResult& pair) {
  const auto optional_text = [](const auto& value, std::string_view unit) -> std::string {
    if (!value) {
      return std::string(kAbsent);
    }
    return fmt::format("{} {}", *value, unit);
  };
  const GpuState& before = pair.gpu_before;
  const GpuState& after = pair.gpu_after;
  if (!before.sm_clock_mhz && !after.sm_clock_mhz && !before.power_w && !after.power_w &&
      before.throttle_reasons.empty() && after.throttle_reasons.empty()) {
    return "<p class=\"small\">GPU state: not read (no NVML, or a CPU-only pair).</p>\n";
  }
  std::string html = "<table class=\"detail\"><caption>GPU state</caption>\n"
                     "<tr><th></th><th>Before</th><th>After</th></tr>\n";
  std::string after_clock = optional_text(after.sm_clock_mhz, "MHz");
  if (before.sm_clock_mhz && after.sm_clock_mhz &&
      *after.sm_clock_mhz < 0.95 * static_cast<double>(*before.sm_clock_mhz)) {
    after_clock = "<span class=\"warn\">" + after_clock + " (fell during the measurement)</span>";
  }
  html += two_column_row("SM clock", optional_text(before.sm_clock_mhz, "MHz"), after_clock);
  html += two_column_row("Memory clock", optional_text(before.memory_clock_mhz, "MHz"),
                         optional_text(after.memory_clock_mhz, "MHz"));
  const auto power = [](const std::optional<double>& watts) {
    return watts ? fmt::format("{:.0f} W", *watts) : std::string(kAbsent);
  };
  html += two_column_row("Power", power(before.power_w), power(after.power_w));
  html += two_column_row("Temperature", optional_text(before.temperature_c, "°C"),
                         optional_text(after.temperature_c, "°C"));
  const auto reasons = [](const std::vector<std::string>& list) {
    if (list.empty()) {
      return std::string("none");
    }
    std::string text;
    for (const std::string& reason : list) {
      text += (text.empty() ? "" : ", ") + esc(reason);
    }
    return "<span class=\"warn\">" + text + "</span>";
  };
  html += two_column_row("Throttle reasons", reasons(before.throttle_reasons),
                         reasons(after.throttle_reasons));
  return html + "</table>\n";
}

// The pair's Nsight Compute profile (bench run --profile): per variant, a row per kernel with its
// median duration and headline metrics; the deep set's other metrics in a last column.
std::string profile_table(const PairResult& pair) {
  namespace pf = profile_format;
  if (!pair.profile) {
    return {};
  }
  const PairProfile& profile = *pair.profile;
  std::string html = fmt::format(
      "<table class=\"detail profile\"><caption>Nsight Compute profile ({} set): {} <span "
      "class=\"small\">a separate pass after the timing: {} warm-up call(s), {} samples per "
      "variant, clocks not locked</span></caption>\n",
      esc(profile.set), esc(profile_status_name(profile.status)), profile.warmup_runs,
      profile.samples);
  if (!profile.baseline && !profile.optimized) {
    return html + fmt::format("<tr><td>{}</td></tr></table>\n", esc(profile.reason));
  }
  constexpr std::array<std::string_view, 5> kColumns{
      "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
      "sm__warps_active.avg.pct_of_peak_sustained_active"};
  constexpr std::array<std::string_view, 3> kShownElsewhere{
      "launch__registers_per_thread", "launch__grid_size", "launch__block_size"};
  html += "<tr><th>Variant</th><th>Kernel</th><th>Launches</th><th>Grid × block</th><th>Registers"
          "</th><th>Duration (median)</th><th>SM</th><th>Memory</th><th>DRAM</th><th>Occupancy"
          "</th><th>Other metrics</th></tr>\n";
  for (const auto& [role, slot] :
       {std::pair{"Baseline", &profile.baseline}, std::pair{"Optimized", &profile.optimized}}) {
    if (!*slot) {
      continue;
    }
    const VariantProfile& variant = **slot;
    std::string who = fmt::format("{}<br><span class=\"small\">{}</span>", role,
                                  std::isfinite(variant.duration_ms_per_run)
                                      ? esc(rf::format_duration_ms(variant.duration_ms_per_run)) +
                                            " per run"
                                      : std::string());
    if (variant.status != ProfileStatus::collected || variant.kernels.empty()) {
      html += fmt::format("<tr><td>{}</td><td colspan=\"10\">{}</td></tr>\n", who,
                          esc(pf::describe_variant(variant)));
      continue;
    }
    for (const ProfiledKernel& kernel : variant.kernels) {
      const auto metric = [&kernel](std::string_view name) {
        const ProfileMetric* m = pf::find_metric(kernel, name);
        return m != nullptr ? esc(pf::format_metric_value(*m)) : std::string(kAbsent);
      };
      std::string others;
      for (const ProfileMetric& m : kernel.metrics) {
        if (std::find(kColumns.begin(), kColumns.end(), m.name) == kColumns.end() &&
            std::find(kShownElsewhere.begin(), kShownElsewhere.end(), m.name) ==
                kShownElsewhere.end()) {
          others += fmt::format("{}<code>{}</code> {}", others.empty() ? "" : "<br>", esc(m.name),
                                esc(pf::format_metric_value(m)));
        }
      }
      html += fmt::format(
          "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{} × {}</td><td>{}</td><td>{}"
          "</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"small\">{}</td></tr>\n",
          who, esc(kernel.name), kernel.launches, esc(kernel.grid_size), esc(kernel.block_size),
          metric("launch__registers_per_thread"), metric(kColumns[0]), metric(kColumns[1]),
          metric(kColumns[2]), metric(kColumns[3]), metric(kColumns[4]),
          others.empty() ? std::string(kAbsent) : others);
      who = "";
    }
    if (!variant.reason.empty()) {
      html += fmt::format("<tr><td></td><td colspan=\"10\" class=\"small\">{}</td></tr>\n",
                          esc(variant.reason));
    }
  }
  if (profile.status != ProfileStatus::collected && !profile.reason.empty()) {
    html += fmt::format("<tr><td colspan=\"11\" class=\"small\">{}</td></tr>\n",
                        esc(profile.reason));
  }
  return html + "</table>\n";
}

std::string verification_table(const PairResult& pair) {
  std::string html = fmt::format("<table class=\"detail checks\"><caption>Verification: <span "
                                 "class=\"{}\">{}</span></caption>\n",
                                 pair.verification.passed ? "passed-text" : "failed-text",
                                 esc(rf::format_verification(pair.verification)));
  if (pair.verification.checks.empty()) {
    return html + "<tr><td>No check ran.</td></tr></table>\n";
  }
  html += "<tr><th>Check</th><th>Outcome</th><th>Detail</th></tr>\n";
  for (const CheckOutcome& check : pair.verification.checks) {
    html += fmt::format("<tr class=\"{}\"><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                        check.passed ? "check-passed" : "check-failed", esc(check.check),
                        check.passed ? "✓ passed" : "✗ failed", esc(check.detail));
  }
  return html + "</table>\n";
}

// Sections start open for pairs that did not pass, and for every pair of a small run.
constexpr std::size_t kPairsShownOpen = 10;

std::string render_pair_detail(const PairResult& pair, std::size_t index, bool open,
                               const HtmlReportOptions& options) {
  const bool shown = rf::shows_speedup(pair);
  const bool passed = pair.status == PairStatus::passed && pair.verification.passed;
  std::string html = fmt::format(
      "<details class=\"pair\" id=\"{}\" data-pair=\"{}\"{}>\n<summary><span class=\"badge {}\">{}"
      "</span> <strong>{}</strong> <span class=\"small\">{} → {}</span>{}</summary>\n",
      pair_anchor(index), pair_key(index), open || !passed ? " open" : "",
      status_class(pair.status), esc(pair_status_name(pair.status)), esc(pair.target),
      esc(pair.baseline_variant), esc(pair.optimized_variant),
      shown ? " <span class=\"" + verdict_class(*pair.speedup) + "\">" +
                  esc(rf::format_speedup(*pair.speedup)) + "</span>"
            : "");
  if (!pair.reason.empty() || !pair.verification.passed) {
    const std::string why = pair.status == PairStatus::passed
                                ? "Checks failed (" + rf::format_verification(pair.verification) +
                                      "), not enforced under --verify-phase detect; no speedup or "
                                      "roofline is reported for it."
                                : rf::describe_outcome(pair, true);
    html += fmt::format("<pre class=\"reason-block\">{}</pre>\n", esc(why));
  }

  html += "<div class=\"grid\">\n<table class=\"detail\"><caption>Problem</caption>\n";
  if (pair.signature.empty()) {
    html += row("Signature", "(none recorded)");
  }
  for (const auto& [name, value] : pair.signature) {
    html += row("<code>" + esc(name) + "</code>", esc(value));
  }
  html += row("Bytes per run", fmt::format("{} <span class=\"small\">({:.0f} B)</span>",
                                           with_si_prefix(pair.bytes, "B"), pair.bytes));
  html += row("FLOPs per run", with_si_prefix(pair.flops, "FLOP"));
  if (pair.bytes > 0 && pair.flops > 0) {
    html += row("Arithmetic intensity", significant(pair.flops / pair.bytes) + " FLOP/byte");
  }
  if (pair.launches > 0) {
    html += row("Launches per run", fmt::format("{:g}", pair.launches));
  }
  for (const auto& [name, value] : pair.counters_per_run) {
    html += row(esc(name) + " per run", fmt::format("{:g}", value));
  }
  html += row("Worker wall time", fmt::format("{:.1f} s", pair.wall_seconds));
  if (!pair.log_file.empty()) {
    html += row("Log", options.log_href_prefix.empty()
                           ? "<code>" + esc(pair.log_file) + "</code>"
                           : fmt::format("<a href=\"{}\"><code>{}</code></a>",
                                         esc(options.log_href_prefix + pair.log_file),
                                         esc(pair.log_file)));
  }
  html += "</table>\n";

  html += "<table class=\"detail\"><caption>Speedup and roofline</caption>\n";
  if (shown) {
    const Speedup& speedup = *pair.speedup;
    html += row("Speedup", esc(rf::format_speedup(speedup)));
    html += row("Interval", fmt::format("{:g}% bootstrap, {} resamples", speedup.confidence * 100,
                                        speedup.resamples));
    html += row("Verdict", fmt::format("<span class=\"{}\">{}</span>", verdict_class(speedup),
                                       esc(speedup.verdict)));
    if (pair.expectation) {
      const ExpectationCheck& check = *pair.expectation;
      const std::string verdict_class_name = check.verdict == "regression"    ? "slower"
                                             : check.verdict == "improvement" ? "faster"
                                                                              : "";
      html += row("Expectation (" + esc(check.hardware_key) + ")",
                  fmt::format("<span class=\"{}\">{}</span> <span class=\"small\">{}{}</span>",
                              verdict_class_name, esc(check.verdict), esc(check.detail),
                              check.recorded.empty() ? "" : "; recorded: " + esc(check.recorded)));
    }
    html += row("Optimized roofline", roofline_cell(pair.roofline));
    html += row("Baseline roofline", roofline_cell(pair.baseline_roofline));
    const std::optional<Roofline>& source = pair.roofline ? pair.roofline : pair.baseline_roofline;
    if (source && !source->ceiling_source.empty()) {
      html +=
          row("Ceiling source", "<span class=\"small\">" + esc(source->ceiling_source) + "</span>");
    }
  } else {
    html += row("Speedup", fmt::format("<span class=\"absent\">none reported: {}</span>",
                                       esc(quarantine_reason(pair))));
  }
  html += "</table>\n";
  html += gpu_state_table(pair);
  html += "</div>\n";

  if (pair.baseline || pair.optimized) {
    html += timing_table(pair);
    html += "<div class=\"histograms\">\n";
    if (pair.baseline) {
      html += render_histogram(*pair.baseline, "Baseline");
    }
    if (pair.optimized) {
      html += render_histogram(*pair.optimized, "Optimized");
    }
    html += "</div>\n";
  }
  html += profile_table(pair);
  html += verification_table(pair);
  return html + "</details>\n";
}

// ---------------------------------------------------------------------------------------------
// Style and script

constexpr std::string_view kStyle = R"css(
:root { --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --band: #f6f8fa; --accent: #0969da;
  --faster: #1a7f37; --slower: #cf222e; --nodiff: #6e7781; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 22px; margin: 8px 0 4px; } h1 .gpu { color: var(--muted); font-weight: normal; }
h2 { font-size: 18px; margin: 32px 0 6px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
nav { margin: 8px 0; color: var(--muted); } nav a { margin-right: 14px; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 2px 24px; margin: 8px 0; }
.facts div { display: flex; gap: 8px; min-width: 0; } .facts dt { color: var(--muted); min-width: 92px; }
.facts dd { margin: 0; overflow-wrap: anywhere; } .facts .wide { grid-column: 1 / -1; }
.banner { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px; border-radius: 6px; }
.note { color: var(--muted); max-width: 900px; margin: 4px 0 10px; }
.empty { color: var(--muted); font-style: italic; }
.small { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; }
#summary-table { width: 100%; }
#summary-table th, #summary-table td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
#summary-table th { cursor: pointer; user-select: none; background: var(--band); white-space: nowrap; }
#summary-table th.sorted-up::after { content: " ▲"; } #summary-table th.sorted-down::after { content: " ▼"; }
.num { text-align: right !important; white-space: nowrap; }
.reason { color: var(--muted); font-size: 12px; max-width: 380px; overflow-wrap: anywhere; }
.absent { color: var(--muted); }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; color: #fff; background: var(--nodiff); }
.badge.passed { background: var(--faster); } .badge.failed { background: var(--slower); }
.badge.skipped, .badge.interrupted { background: var(--warn); }
td.faster, span.faster, text.faster { color: var(--faster); fill: var(--faster); }
td.slower, span.slower, text.slower { color: var(--slower); fill: var(--slower); }
td.nodiff, span.nodiff, text.nodiff { color: var(--nodiff); fill: var(--nodiff); }
.failed-text { color: var(--slower); } .passed-text { color: var(--faster); } .warn { color: var(--warn); }
tr.highlight td, g.highlight .label { background: #fff8c5; font-weight: 600; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 4px 0; }
section > svg.chart { width: 100%; }
svg text { font-size: 12px; fill: var(--fg); }
svg .band { fill: var(--band); } svg .grid { stroke: var(--line); stroke-width: 1; }
svg .tick { fill: var(--muted); font-size: 11px; } svg .axis-title { fill: var(--muted); }
svg .unity { stroke: var(--fg); stroke-width: 1.5; stroke-dasharray: 4 3; }
svg .unity-label { fill: var(--fg); font-size: 11px; }
svg .whisker { stroke-width: 2; } svg .whisker.faster { stroke: var(--faster); }
svg .whisker.slower { stroke: var(--slower); } svg .whisker.nodiff { stroke: var(--nodiff); }
svg .dot { stroke: #fff; stroke-width: 1.5; } svg .dot.faster { fill: var(--faster); }
svg .dot.slower { fill: var(--slower); } svg .dot.nodiff { fill: var(--nodiff); }
svg text.absent { fill: var(--muted); font-style: italic; }
svg .ceiling { stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 6 4; fill: none; }
svg .ceiling.roof { stroke: var(--fg); stroke-width: 2.5; stroke-dasharray: none; }
svg .ceiling-label { fill: var(--fg); font-size: 11.5px; }
svg .baseline-dot { fill: #fff; stroke-width: 2; } svg .optimized-dot { stroke: #fff; stroke-width: 1.5; }
svg .move { stroke-width: 1.5; } svg .point-label { font-size: 11.5px; }
svg .track { fill: var(--band); stroke: var(--line); }
svg .bar-baseline { fill: #afb8c1; } svg .bar-optimized { fill: var(--accent); }
svg .bar-optimized.beyond { fill: var(--slower); }
svg .value-detail { fill: var(--muted); font-size: 11px; }
svg .bin { fill: #8fb8ed; } svg .median { stroke: var(--fg); stroke-width: 1.5; }
svg .chart-title { font-size: 12px; font-weight: 600; }
g.highlight circle, g.highlight rect.bar-optimized { stroke: #d4a72c; stroke-width: 3; }
details.pair { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 6px 12px; }
details.pair > summary { cursor: pointer; padding: 4px 0; }
details.pair.highlight { border-color: #d4a72c; box-shadow: 0 0 0 2px #fff8c5; }
.reason-block { white-space: pre-wrap; background: #ffebe9; border: 1px solid #ff818266; padding: 8px; border-radius: 6px; overflow-wrap: anywhere; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px 24px; align-items: start; }
table.detail { margin: 10px 0; font-size: 13px; max-width: 100%; }
table.detail caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
table.detail th, table.detail td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; border-bottom: 1px solid var(--band); overflow-wrap: anywhere; }
table.detail th { color: var(--muted); font-weight: normal; white-space: nowrap; }
table.checks td:nth-child(1), table.checks td:nth-child(2) { white-space: nowrap; }
tr.check-failed td { color: var(--slower); }
.histograms { display: flex; flex-wrap: wrap; gap: 12px; }
.toolbar button { font: inherit; padding: 2px 10px; margin-right: 6px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 8px; }
@media print { details.pair { break-inside: avoid; } nav, .toolbar { display: none; } }
)css";

// Sorting, cross-highlighting, expand/collapse, and the self-check the browser test reads.
constexpr std::string_view kScript = R"js(
(function () {
  "use strict";
  var body = document.body;
  try {
    var table = document.getElementById("summary-table");
    if (table) {
      var headers = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(headers, function (header, column) {
        header.addEventListener("click", function () {
          var up = !header.classList.contains("sorted-up");
          Array.prototype.forEach.call(headers, function (h) { h.classList.remove("sorted-up", "sorted-down"); });
          header.classList.add(up ? "sorted-up" : "sorted-down");
          var numeric = header.getAttribute("data-type") === "number";
          var rows = Array.prototype.slice.call(table.tBodies[0].rows);
          rows.sort(function (a, b) {
            var x = a.cells[column], y = b.cells[column];
            if (numeric) {
              var p = parseFloat(x.getAttribute("data-sort")), q = parseFloat(y.getAttribute("data-sort"));
              if (isNaN(p) && isNaN(q)) return 0;
              if (isNaN(p)) return 1;
              if (isNaN(q)) return -1;
              return up ? p - q : q - p;
            }
            var s = x.textContent, t = y.textContent;
            return up ? s.localeCompare(t) : t.localeCompare(s);
          });
          rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
        });
      });
    }
    var highlighted = [];
    function highlight(key) {
      highlighted.forEach(function (element) { element.classList.remove("highlight"); });
      highlighted = key ? Array.prototype.slice.call(document.querySelectorAll('[data-pair="' + key + '"]')) : [];
      highlighted.forEach(function (element) { element.classList.add("highlight"); });
    }
    document.querySelectorAll("tr[data-pair], g[data-pair]").forEach(function (element) {
      element.addEventListener("mouseenter", function () { highlight(element.getAttribute("data-pair")); });
      element.addEventListener("mouseleave", function () { highlight(null); });
    });
    // A link to a pair opens its section (a closed <details> would hide the target).
    function openTarget() {
      var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
      if (target && target.tagName === "DETAILS") target.open = true;
    }
    window.addEventListener("hashchange", openTarget);
    openTarget();
    var toolbar = document.getElementById("pair-toolbar");
    if (toolbar) {
      toolbar.hidden = false;
      toolbar.querySelector("[data-action=expand]").addEventListener("click", function () {
        document.querySelectorAll("details.pair").forEach(function (d) { d.open = true; });
      });
      toolbar.querySelector("[data-action=collapse]").addEventListener("click", function () {
        document.querySelectorAll("details.pair").forEach(function (d) { d.open = false; });
      });
    }
    // Self-check: every chart in an open part of the page has a size and the marks it declares.
    var problems = [];
    var charts = document.querySelectorAll("svg[data-chart]");
    charts.forEach(function (svg) {
      var name = svg.getAttribute("data-chart");
      var expected = Number(svg.getAttribute("data-marks"));
      var marks = svg.querySelectorAll("[data-mark]").length;
      if (marks !== expected) problems.push(name + ": " + marks + " marks drawn, " + expected + " expected");
      if (svg.closest("details") && !svg.closest("details").open) return;
      var box = svg.getBoundingClientRect();
      if (!(box.width > 0 && box.height > 0)) problems.push(name + ": not laid out");
    });
    body.setAttribute("data-charts", String(charts.length));
    body.setAttribute("data-rendered", problems.length ? "error: " + problems.join("; ") : "ok");
  } catch (error) {
    body.setAttribute("data-rendered", "error: " + error.message);
    throw error;
  }
})();
)js";

}  // namespace

std::string html_escape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      escaped += "&amp;";
      break;
    case '<':
      escaped += "&lt;";
      break;
    case '>':
      escaped += "&gt;";
      break;
    case '"':
      escaped += "&quot;";
      break;
    case '\'':
      escaped += "&#39;";
      break;
    default:
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
          c == '\x7f') {
        escaped += "\xEF\xBF\xBD";  // U+FFFD
      } else {
        escaped.push_back(c);
      }
    }
  }
  return escaped;
}

std::string render_html_report(const RunResults& results, const nlohmann::json& manifest,
                               const HtmlReportOptions& options) {
  const std::string gpu = manifest_gpu_name(manifest);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"{}\">\n<title>aisp run {}{}</title>\n<style>{}</style>\n"
      "</head>\n<body data-rendered=\"pending\">\n",
      esc(options.generator), esc(results.run_id), gpu.empty() ? "" : " on " + esc(gpu), kStyle);
  html += render_header(results, manifest);
  html += "<nav><a href=\"#summary\">Summary</a><a href=\"#speedups\">Speedups</a>"
          "<a href=\"#roofline\">Roofline</a><a href=\"#ceilings\">Against the ceiling</a>"
          "<a href=\"#pairs\">Pairs</a></nav>\n";
  html += render_summary_table(results);
  html += render_speedup_chart(results);
  html += render_roofline_chart(results);
  html += render_ceiling_chart(results);
  html += "<section id=\"pairs\">\n<h2>Pairs</h2>\n"
          "<p class=\"note\">Everything recorded for each pair: the problem, how each variant was "
          "timed and when sampling stopped, the GPU's clocks around the measurement, the sample "
          "distributions, and every verification check. Sections start open for pairs that did not "
          "pass, and for every pair of a run of ten or fewer; a target's link anywhere on the "
          "page opens its section.</p>\n"
          "<p class=\"toolbar\" id=\"pair-toolbar\" hidden><button type=\"button\" "
          "data-action=\"expand\">Expand all</button><button type=\"button\" "
          "data-action=\"collapse\">Collapse all</button></p>\n";
  if (results.pairs.empty()) {
    html += "<p class=\"empty\">The run holds no pairs.</p>\n";
  }
  for (std::size_t i = 0; i < results.pairs.size(); ++i) {
    html +=
        render_pair_detail(results.pairs[i], i, results.pairs.size() <= kPairsShownOpen, options);
  }
  html += "</section>\n";
  html += fmt::format("<footer>Written by {}{}. Every number above is read from the run's "
                      "results; docs/reports.md explains how to read this page.</footer>\n",
                      esc(options.generator),
                      options.results_source.empty()
                          ? std::string()
                          : " from <code>" + esc(options.results_source) + "</code>");
  html += "<script>";
  html += kScript;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace aisp
