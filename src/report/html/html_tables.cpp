// The header, the summary table and the per-pair detail of report.html.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/html/html_parts.hpp"
#include "report/library_format.hpp"
#include "report/precision_format.hpp"
#include "report/profile_format.hpp"
#include "report/report_format.hpp"
#include "results/run_input.hpp"

namespace aisp::html {

namespace rf = report_format;
using rf::kAbsent;

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

// A badge beside a target whose optimized variant computes in a lower precision on purpose.
std::string lower_precision_badge(const PairResult& pair) {
  const PrecisionDeclaration* lower = precision_format::lower_precision(pair);
  if (lower == nullptr) {
    return {};
  }
  return fmt::format(" <span class=\"badge lower\" title=\"{}\">lower precision</span>",
                     esc(lower->format));
}

std::string render_summary_table(const RunResults& results) {
  const std::string ci = rf::confidence_label(results);
  const bool library_column = library_format::any_library(results);
  const bool error_column = precision_format::any_precision(results);
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
      "<th data-type=\"number\">Roofline (optimized)</th>{}"
      "<th data-type=\"text\">Verification</th></tr></thead>\n<tbody>\n",
      ci, esc(ci),
      std::string(library_column ? "<th data-type=\"number\">Of library</th>" : "") +
          (error_column ? "<th data-type=\"number\" class=\"num\">Error (rel. RMS)</th>" : ""));
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
    html += fmt::format("<tr data-pair=\"{}\"><td><a href=\"#{}\">{}</a>{}", pair_key(i),
                        pair_anchor(i), esc(pair.target), lower_precision_badge(pair));
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
    if (library_column) {
      if (rf::shows_library_fraction(pair)) {
        html += fmt::format("<td data-sort=\"{}\">{} <span class=\"small\">of {}</span></td>",
                            pair.library->fraction->value,
                            esc(rf::format_library_fraction(*pair.library->fraction)),
                            esc(pair.library->library));
      } else if (pair.library && pair.library->role == LibraryRole::reference &&
                 pair.status == PairStatus::passed) {
        html +=
            fmt::format("<td data-sort=\"1\">the {} reference</td>", esc(pair.library->library));
      } else {
        html += fmt::format("<td class=\"absent\" data-sort=\"\">{}</td>", kAbsent);
      }
    }
    if (error_column) {
      const std::optional<double> error =
          pair.precision ? precision_format::worst_relative_rms(pair.precision->optimized)
                         : std::nullopt;
      if (error) {
        html += fmt::format("<td class=\"num\" data-sort=\"{}\">{}</td>", *error,
                            esc(rf::format_error(*error)));
      } else {
        html += fmt::format("<td class=\"num absent\" data-sort=\"\">{}</td>", kAbsent);
      }
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
// Per-pair detail

std::string row(std::string_view name, const std::string& value_html) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", name, value_html);
}

std::string two_column_row(std::string_view name, const std::string& baseline_html,
                           const std::string& optimized_html) {
  return fmt::format("<tr><th>{}</th><td>{}</td><td>{}</td></tr>\n", name, baseline_html,
                     optimized_html);
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

// Each variant's error against the float64 reference, per output, and a declared lower precision.
std::string precision_table(const PairResult& pair) {
  if (!pair.precision) {
    return {};
  }
  std::string html = "<table class=\"detail precision\"><caption>Precision against the float64 "
                     "reference <span class=\"small\">verification inputs, sampled elements; max "
                     "rel over elements at least a tenth of the reference's RMS</span></caption>\n"
                     "<tr><th>Variant</th><th>Output</th><th>Sampled</th><th>Rel. RMS</th>"
                     "<th>Max abs</th><th>Max rel</th></tr>\n";
  for (const auto& [role, variant] : {std::pair{"Baseline", &pair.precision->baseline},
                                      std::pair{"Optimized", &pair.precision->optimized}}) {
    const std::string who = fmt::format("{}<br><span class=\"small\"><code>{}</code></span>", role,
                                        esc(variant->variant));
    if (variant->outputs.empty()) {
      html += fmt::format("<tr><td>{}</td><td colspan=\"5\">not measured: the baseline gives no "
                          "float64 reference</td></tr>\n",
                          who);
    }
    for (const OutputError& error : variant->outputs) {
      html += fmt::format(
          "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "</tr>\n",
          who, esc(error.output), error.sampled, esc(rf::format_error(error.relative_rms)),
          esc(rf::format_error(error.max_abs)),
          error.max_relative ? esc(rf::format_error(*error.max_relative)) : std::string(kAbsent));
    }
    if (variant->lower_precision) {
      const PrecisionDeclaration& declared = *variant->lower_precision;
      html += fmt::format("<tr><td></td><td colspan=\"5\"><span class=\"badge lower\">lower "
                          "precision</span> {}; held to rel. RMS &le; {}<br><span "
                          "class=\"small\">{}</span></td></tr>\n",
                          esc(declared.format), esc(rf::format_error(declared.max_relative_rms)),
                          esc(declared.justification));
    }
  }
  return html + "</table>\n";
}

// The pair's library reference in the speedup table: the fraction and the reference's median.
std::string library_rows(const PairResult& pair) {
  if (!pair.library) {
    return {};
  }
  const LibraryComparison& library = *pair.library;
  const std::string name = "Of " + esc(library.library);
  switch (library.role) {
  case LibraryRole::reference:
    return row(name, fmt::format("this target is the reference (<code>{}</code>)",
                                 esc(library.reference_variant)));
  case LibraryRole::baseline:
  case LibraryRole::timed:
    break;
  }
  if (!rf::shows_library_fraction(pair)) {
    return row(name,
               fmt::format("<span class=\"absent\">no fraction: {}</span>",
                           esc(library.reason.empty() ? quarantine_reason(pair) : library.reason)));
  }
  std::string how =
      library.role == LibraryRole::baseline
          ? fmt::format("the baseline <code>{}</code> is the reference: the speedup",
                        esc(library.reference_variant))
          : fmt::format("<code>{}</code> {} median, timed interleaved in the same worker",
                        esc(library.reference_variant),
                        library.reference
                            ? esc(rf::format_duration_ms(library.reference->stats.median))
                            : std::string(kAbsent));
  return row(name, fmt::format("<span class=\"{}\">{}</span> <span class=\"small\">{}; {}</span>",
                               verdict_class(*library.fraction),
                               esc(rf::format_library_fraction(*library.fraction)),
                               esc(library.fraction->verdict), how));
}

std::string render_pair_detail(const PairResult& pair, std::size_t index, bool open,
                               const HtmlReportOptions& options) {
  const bool shown = rf::shows_speedup(pair);
  const bool passed = pair.status == PairStatus::passed && pair.verification.passed;
  std::string html = fmt::format(
      "<details class=\"pair\" id=\"{}\" data-pair=\"{}\"{}>\n<summary><span class=\"badge {}\">{}"
      "</span> <strong>{}</strong>{} <span class=\"small\">{} → {}</span>{}</summary>\n",
      pair_anchor(index), pair_key(index), open || !passed ? " open" : "",
      status_class(pair.status), esc(pair_status_name(pair.status)), esc(pair.target),
      lower_precision_badge(pair), esc(pair.baseline_variant), esc(pair.optimized_variant),
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
    html += library_rows(pair);
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
  html += precision_table(pair);
  html += verification_table(pair);
  return html + "</details>\n";
}

}  // namespace aisp::html
