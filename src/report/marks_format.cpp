#include "report/marks_format.hpp"

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp::marks_format {
namespace {

namespace rf = report_format;

bool has_marks(const std::optional<VariantMeasurement>& variant) {
  return variant && !variant->marks.empty();
}

std::string describe(const char* role, const VariantMeasurement& variant) {
  std::string text = role;
  for (const MarkMeasurement& mark : variant.marks) {
    text += fmt::format(" {} {} [{}, {}]", mark.name, rf::format_duration_ms(mark.stats.median),
                        rf::format_duration_ms(mark.stats.p05),
                        rf::format_duration_ms(mark.stats.p95));
  }
  return text;
}

}  // namespace

std::string format_marks_line(const PairResult& pair) {
  if (!has_marks(pair.baseline) && !has_marks(pair.optimized)) {
    return {};
  }
  std::string text = "marks (from the start of run(), median [p05, p95]):";
  const char* separator = " ";
  if (has_marks(pair.baseline)) {
    text += separator + describe("baseline", *pair.baseline);
    separator = "; ";
  }
  if (has_marks(pair.optimized)) {
    text += separator + describe("optimized", *pair.optimized);
  }
  return text;
}

std::string render_marks_markdown(const RunResults& results) {
  std::string rows;
  for (const PairResult& pair : results.pairs) {
    for (const auto* variant : {&pair.baseline, &pair.optimized}) {
      if (!has_marks(*variant)) {
        continue;
      }
      for (const MarkMeasurement& mark : (*variant)->marks) {
        rows += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", pair.target,
                            (*variant)->variant, mark.name,
                            rf::format_duration_ms(mark.stats.median),
                            rf::format_duration_ms(mark.stats.p05),
                            rf::format_duration_ms(mark.stats.p95),
                            rf::format_duration_ms((*variant)->stats.median));
      }
    }
  }
  if (rows.empty()) {
    return {};
  }
  return "## Marks (time from the start of run())\n\n"
         "| Target | Variant | Mark | Median | p05 | p95 | Whole run (median) |\n"
         "|:--|:--|:--|--:|--:|--:|--:|\n" +
         rows;
}

}  // namespace aisp::marks_format
