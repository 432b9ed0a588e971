// report.html of a run: one self-contained page (inline CSS, SVG charts and a small inline
// script; no fonts, libraries or anything else fetched) that a performance engineer can open from
// an artifacts folder, attach to a ticket or archive. docs/reports.md describes what it shows
// and how to read it.
//
// The charts are SVG written here, so the page reads the same with scripts disabled. The script
// only adds table sorting, cross-highlighting of a pair in every chart, and a self-check: once
// every chart is laid out with the marks it should hold, it sets <body data-rendered="ok">
// (otherwise "error: ..."), which the headless-browser test looks for.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"

namespace aisp {

struct HtmlReportOptions {
  std::string results_source;      // where the results were read from, named in the footer
  std::string log_href_prefix;     // prefixed to a pair's log_file to link it; "" names logs only
  std::string generator = "aisp";  // "aisp 0.1.0", named in the footer
};

// The page. `manifest` is the run's manifest.json (an empty object when absent): the GPU,
// hardware key, commit, driver, command line and settings shown in the header come from it.
// Every string from the results or the manifest is HTML-escaped. As in every report, a pair that
// did not pass with verified outputs shows no speedup, roofline fraction or chart mark.
std::string render_html_report(const RunResults& results, const nlohmann::json& manifest,
                               const HtmlReportOptions& options);

// Text made safe for HTML element content and quoted attribute values: & < > " ' become
// entities; control characters other than tab, line feed and carriage return become U+FFFD.
std::string html_escape(std::string_view text);

}  // namespace aisp
