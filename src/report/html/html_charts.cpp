// The charts of report.html: SVG written here (no library), each with data-marks for the
// browser test's self-check, and the log axes they share.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/html/html_parts.hpp"
#include "report/report_format.hpp"

namespace aisp::html {

namespace rf = report_format;
using rf::kAbsent;

namespace {

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

}  // namespace

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

}  // namespace aisp::html
