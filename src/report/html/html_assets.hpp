// The HTML report's stylesheet and script: src/report/html/report.css and report.js, compiled in
// by cmake/AispEmbedFiles.cmake (the definitions are generated at build time), so the page stays
// self-contained while the CSS and JS are edited as the files they are.
#pragma once

#include <string_view>

namespace aisp::html {

std::string_view report_stylesheet();  // report.css, byte for byte
std::string_view report_script();      // report.js, byte for byte

}  // namespace aisp::html
