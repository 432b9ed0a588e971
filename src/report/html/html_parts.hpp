// The parts of report.html (report/html_report.hpp assembles them): the text and number helpers
// every part uses, the charts (html_charts.cpp), the header, summary table and per-pair detail
// (html_tables.cpp), and the stylesheet and script, which are files of their own (report.css,
// report.js) compiled in at build time (html_assets.hpp). Internal to src/report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"
#include "report/html_report.hpp"

namespace aisp::html {

// ---- text and numbers (html_format.cpp)

// html_escape, short.
std::string esc(std::string_view text);
// A pixel coordinate: one decimal.
std::string px(double value);
// `digits` significant digits, no exponent: "4275", "50.6", "0.000859".
std::string significant(double value, int digits = 3);
// A measured ceiling as the other reports print it: "4275", "50.6", "0.68".
std::string ceiling_number(double value);
// "2.15 GB", "10.7 GFLOP", "512 B".
std::string with_si_prefix(double value, std::string_view unit);
// A tick label: "0.5", "2", "100", "0.001", "1e-05".
std::string tick_number(double value);
// A manifest value as text ("" when absent or not a scalar).
std::string manifest_text(const nlohmann::json& object, const char* key);
// Where a pair's marks and rows meet: the script highlights every element of one data-pair.
std::string pair_key(std::size_t index);
std::string pair_anchor(std::size_t index);
// "faster", "slower" or "nodiff": the CSS class of a speedup's verdict.
std::string verdict_class(const Speedup& speedup);
// Under the verdict of a pair that moved against its expectation: a red "below expectation" or
// a green "above expectation", the numbers in its title. Nothing otherwise.
std::string expectation_mark(const PairResult& pair);
// The CSS class of a status: "passed", "skipped", "interrupted" or "failed".
std::string status_class(PairStatus status);
// Why a pair shows no speedup, in a few words: "crashed", "outputs did not verify", "skipped".
std::string quarantine_reason(const PairResult& pair);
// A speedup the log axis can place: shown (the pair passed with verified outputs) and positive.
bool has_plottable_speedup(const PairResult& pair);
// The samples a variant was judged by: event times, or host times for host-clock variants.
const std::vector<double>& timed_samples(const VariantMeasurement& measurement);

// ---- charts (html_charts.cpp): SVG, so the page reads the same with scripts disabled

// Speedups: one row per pair, a dot at the speedup and whiskers over its confidence interval.
std::string render_speedup_chart(const RunResults& results);
// Roofline: arithmetic intensity against achieved FLOP/s, log-log, under the run's ceilings.
std::string render_roofline_chart(const RunResults& results);
// Against the ceiling: the fraction of its binding ceiling each variant of each pair reached.
std::string render_ceiling_chart(const RunResults& results);
// A histogram of one variant's samples: is the median a typical time, or one mode of several?
std::string render_histogram(const VariantMeasurement& measurement, std::string_view role);

// ---- header, summary table, per-pair detail (html_tables.cpp)

std::string render_header(const RunResults& results, const nlohmann::json& manifest);
std::string render_summary_table(const RunResults& results);
// Sections start open for pairs that did not pass, and for every pair of a small run.
inline constexpr std::size_t kPairsShownOpen = 10;
std::string render_pair_detail(const PairResult& pair, std::size_t index, bool open,
                               const HtmlReportOptions& options);

}  // namespace aisp::html
