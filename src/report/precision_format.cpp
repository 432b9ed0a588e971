#include "report/precision_format.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/report_format.hpp"

namespace aisp::precision_format {
namespace {

namespace rf = report_format;

template <class Field>
std::optional<double> worst(const VariantPrecision& variant, Field field) {
  std::optional<double> largest;
  for (const OutputError& error : variant.outputs) {
    const std::optional<double> value = field(error);
    if (value && (!largest || *value > *largest)) {
      largest = value;
    }
  }
  return largest;
}

std::string max_relative_text(const OutputError& error) {
  return error.max_relative ? rf::format_error(*error.max_relative) : std::string(rf::kAbsent);
}

// One markdown table cell: one line, '|' escaped.
std::string cell(std::string_view text) {
  std::string escaped;
  for (char c : rf::single_line(text)) {
    escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  return escaped;
}

std::string declaration_text(const PrecisionDeclaration& declared) {
  return fmt::format("{}, held to rel. RMS <= {}", declared.format,
                     rf::format_error(declared.max_relative_rms));
}

}  // namespace

std::optional<double> worst_relative_rms(const VariantPrecision& variant) {
  return worst(variant, [](const OutputError& e) { return std::optional(e.relative_rms); });
}
std::optional<double> worst_max_abs(const VariantPrecision& variant) {
  return worst(variant, [](const OutputError& e) { return std::optional(e.max_abs); });
}
std::optional<double> worst_max_relative(const VariantPrecision& variant) {
  return worst(variant, [](const OutputError& e) { return e.max_relative; });
}

const PrecisionDeclaration* lower_precision(const PairResult& pair) {
  if (!pair.precision || !pair.precision->optimized.lower_precision) {
    return nullptr;
  }
  return &*pair.precision->optimized.lower_precision;
}

std::string format_precision_line(const PairResult& pair) {
  if (!pair.precision) {
    return {};
  }
  const PrecisionResult& precision = *pair.precision;
  std::string text;
  const std::vector<OutputError>& optimized = precision.optimized.outputs;
  const std::vector<OutputError>& baseline = precision.baseline.outputs;
  if (!optimized.empty()) {
    text = fmt::format("precision against the float64 reference ({} sampled elements):",
                       optimized.front().sampled);
    for (std::size_t i = 0; i < optimized.size(); ++i) {
      const OutputError& o = optimized[i];
      const OutputError* b = i < baseline.size() ? &baseline[i] : nullptr;
      text += fmt::format(
          "{} {} rel. RMS {} (baseline {}), max |err| {} ({}), max rel {} ({})", i == 0 ? "" : ";",
          o.output, rf::format_error(o.relative_rms),
          b ? rf::format_error(b->relative_rms) : std::string(rf::kAbsent),
          rf::format_error(o.max_abs), b ? rf::format_error(b->max_abs) : std::string(rf::kAbsent),
          max_relative_text(o), b ? max_relative_text(*b) : std::string(rf::kAbsent));
    }
  } else {
    text = "precision: not measured (the pair's baseline gives no float64 reference)";
  }
  for (const auto& [role, variant] :
       {std::pair{"baseline", &precision.baseline}, std::pair{"optimized", &precision.optimized}}) {
    if (variant->lower_precision) {
      text += fmt::format("; {} is LOWER PRECISION ({})", role,
                          declaration_text(*variant->lower_precision));
    }
  }
  return text;
}

std::string precision_cell(const PairResult& pair) {
  if (!pair.precision) {
    return std::string(rf::kAbsent);
  }
  const std::optional<double> error = worst_relative_rms(pair.precision->optimized);
  std::string cell = error ? rf::format_error(*error) : std::string(rf::kAbsent);
  if (lower_precision(pair) != nullptr) {
    cell += ", lower precision";
  }
  return cell;
}

bool any_precision(const RunResults& results) {
  return std::any_of(results.pairs.begin(), results.pairs.end(),
                     [](const PairResult& pair) { return pair.precision.has_value(); });
}

std::string render_precision_markdown(const RunResults& results) {
  std::string rows;
  for (const PairResult& pair : results.pairs) {
    if (!pair.precision) {
      continue;
    }
    for (const VariantPrecision* variant :
         {&pair.precision->baseline, &pair.precision->optimized}) {
      const std::string declared =
          variant->lower_precision
              ? "**lower precision**: " + declaration_text(*variant->lower_precision)
              : std::string(rf::kAbsent);
      if (variant->outputs.empty()) {
        if (variant->lower_precision) {
          rows += fmt::format("| {} | {} | — | — | — | — | {} |\n", cell(pair.target),
                              cell(variant->variant), cell(declared));
        }
        continue;
      }
      for (const OutputError& error : variant->outputs) {
        rows += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell(pair.target),
                            cell(variant->variant), cell(error.output),
                            rf::format_error(error.relative_rms), rf::format_error(error.max_abs),
                            max_relative_text(error), cell(declared));
      }
    }
  }
  if (rows.empty()) {
    return {};
  }
  return "## Precision against the float64 reference\n\n"
         "Each variant's error against the pair's float64 `reference()` on the sampled elements "
         "(verification inputs). Max rel is over the elements whose reference is at least a tenth "
         "of its RMS. A variant that declares lower precision is held to its own bound.\n\n"
         "| Target | Variant | Output | Rel. RMS | Max abs | Max rel | Declared |\n"
         "|:--|:--|:--|--:|--:|--:|:--|\n" +
         rows;
}

}  // namespace aisp::precision_format
