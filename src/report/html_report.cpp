// report.html: the page around its parts (report/html/): the head with the embedded stylesheet,
// the header, summary table and charts, the per-pair detail, the footer and the embedded script.
#include "report/html_report.hpp"

#include <fmt/format.h>

#include "report/html/html_assets.hpp"
#include "report/html/html_parts.hpp"
#include "results/run_input.hpp"

namespace aisp {

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
  using namespace html;
  const std::string gpu = manifest_gpu_name(manifest);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"{}\">\n<title>aisp run {}{}</title>\n<style>\n{}</style>\n"
      "</head>\n<body data-rendered=\"pending\">\n",
      esc(options.generator), esc(results.run_id), gpu.empty() ? "" : " on " + esc(gpu), report_stylesheet());
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
  html += "<script>\n";
  html += report_script();
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace aisp
