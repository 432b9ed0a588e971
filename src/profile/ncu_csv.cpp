#include "profile/ncu_csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>

#include "measure/statistics.hpp"

namespace aisp {

// ncu prints a kernel in an anonymous namespace as "unnamed>::add_one(float *, int)" (seen with
// CUDA 13.0's ncu): the demangler's "<unnamed>" with its '<' cut off at the start of the name.
// Shown as the C++ demangler writes it, "(anonymous namespace)::add_one(float *, int)"; a
// "<unnamed>::" inside the name (a template argument) is rewritten the same way.
std::string readable_kernel_name(std::string name) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  constexpr std::string_view kCutPrefix = "unnamed>::";
  constexpr std::string_view kWhole = "<unnamed>::";
  if (name.starts_with(kCutPrefix)) {
    name.replace(0, kCutPrefix.size(), kAnonymous);
  }
  for (std::size_t at = name.find(kWhole); at != std::string::npos; at = name.find(kWhole, at)) {
    name.replace(at, kWhole.size(), kAnonymous);
    at += kAnonymous.size();
  }
  return name;
}

namespace {

std::size_t parse_record(std::string_view text, std::size_t pos, std::vector<std::string>& cells) {
  std::string cell;
  bool quoted = false;
  bool in_cell_quotes = false;
  while (pos < text.size()) {
    const char c = text[pos];
    if (in_cell_quotes) {
      if (c == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          cell.push_back('"');
          pos += 2;
          continue;
        }
        in_cell_quotes = false;
      } else {
        cell.push_back(c);
      }
      ++pos;
      continue;
    }
    if (c == '"' && cell.empty() && !quoted) {
      quoted = true;
      in_cell_quotes = true;
      ++pos;
      continue;
    }
    if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
      quoted = false;
      ++pos;
      continue;
    }
    if (c == '\n' || c == '\r') {
      ++pos;
      if (c == '\r' && pos < text.size() && text[pos] == '\n') {
        ++pos;
      }
      break;
    }
    cell.push_back(c);
    ++pos;
  }
  cells.push_back(std::move(cell));
  return pos;
}

// Every CSV record of `text`: lines that begin with a double quote. Other lines are messages.
std::vector<std::vector<std::string>> csv_records(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '"') {
      std::vector<std::string> cells;
      pos = parse_record(text, pos, cells);
      records.push_back(std::move(cells));
      continue;
    }
    const std::size_t end = text.find('\n', pos);
    pos = end == std::string_view::npos ? text.size() : end + 1;
  }
  return records;
}

bool starts_with_any(std::string_view name, const std::vector<std::string>& prefixes) {
  for (const std::string& prefix : prefixes) {
    if (name.starts_with(prefix)) {
      return true;
    }
  }
  return false;
}

std::string trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) {
    return {};
  }
  const std::size_t last = text.find_last_not_of(" \t\r");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

std::optional<std::size_t> NcuRawTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) {
      return i;
    }
  }
  return std::nullopt;
}

std::optional<NcuRawTable> parse_ncu_raw_csv(std::string_view text) {
  const std::vector<std::vector<std::string>> records = csv_records(text);
  std::size_t i = 0;
  while (i < records.size() && !(records[i].size() > 1 && records[i].front() == "ID")) {
    ++i;
  }
  if (i == records.size()) {
    return std::nullopt;
  }
  NcuRawTable table;
  table.columns = records[i++];
  if (i < records.size() && records[i].size() == table.columns.size() &&
      records[i].front().empty()) {
    table.units = records[i++];
  }
  for (; i < records.size(); ++i) {
    const std::vector<std::string>& record = records[i];
    // A repeated header (a second process's table) or a stray record of another shape.
    if (record.size() != table.columns.size() || record.front() == "ID" || record.front().empty()) {
      continue;
    }
    table.rows.push_back(record);
  }
  return table;
}

std::optional<double> parse_ncu_number(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c != ',' && c != ' ') {
      digits.push_back(c);
    }
  }
  if (digits.empty()) {
    return std::nullopt;
  }
  double value = 0;
  const char* end = digits.data() + digits.size();
  const auto [stop, error] = std::from_chars(digits.data(), end, value);
  if (error != std::errc() || stop != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::pair<double, std::string> normalize_ncu_value(double value, std::string_view unit) {
  struct Scale {
    std::string_view unit;
    double factor;
    std::string_view base;
  };
  static constexpr std::array<Scale, 17> kScales{{
      {"ns", 1, "ns"},
      {"nsecond", 1, "ns"},
      {"us", 1e3, "ns"},
      {"usecond", 1e3, "ns"},
      {"ms", 1e6, "ns"},
      {"msecond", 1e6, "ns"},
      {"s", 1e9, "ns"},
      {"second", 1e9, "ns"},
      {"byte", 1, "byte"},
      {"Kbyte", 1e3, "byte"},
      {"Mbyte", 1e6, "byte"},
      {"Gbyte", 1e9, "byte"},
      {"Tbyte", 1e12, "byte"},
      {"KB", 1e3, "byte"},
      {"MB", 1e6, "byte"},
      {"GB", 1e9, "byte"},
      {"TB", 1e12, "byte"},
  }};
  for (const Scale& scale : kScales) {
    if (scale.unit == unit) {
      return {value * scale.factor, std::string(scale.base)};
    }
  }
  return {value, std::string(unit)};
}

NcuKernelSummary summarize_ncu_kernels(const NcuRawTable& table, const NcuMetricSet& set) {
  // The columns to store, in the set's order: its metrics, then prefix matches in table order.
  std::vector<std::size_t> metric_columns;
  for (const std::string& metric : set.metrics) {
    if (const auto index = table.column(metric)) {
      metric_columns.push_back(*index);
    }
  }
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    const bool listed =
        std::find(set.metrics.begin(), set.metrics.end(), table.columns[i]) != set.metrics.end();
    if (!listed && starts_with_any(table.columns[i], set.stored_prefixes)) {
      metric_columns.push_back(i);
    }
  }
  const auto unit_of = [&table](std::size_t column) -> std::string_view {
    return column < table.units.size() ? std::string_view(table.units[column]) : "";
  };
  const std::optional<std::size_t> name_column = table.column("Kernel Name");
  const std::optional<std::size_t> grid_column = table.column("Grid Size");
  const std::optional<std::size_t> block_column = table.column("Block Size");
  const std::optional<std::size_t> duration_column = table.column(kNcuDurationMetric);

  NcuKernelSummary summary;
  summary.duration_complete = duration_column.has_value() && !table.rows.empty();
  std::map<std::string, std::size_t> kernel_index;
  // values[kernel][k]: the values of metric_columns[k] over that kernel's launches.
  std::vector<std::vector<std::vector<double>>> values;
  std::vector<std::vector<std::string>> units;
  for (const std::vector<std::string>& row : table.rows) {
    const std::string name =
        name_column ? readable_kernel_name(row[*name_column]) : std::string("(unnamed kernel)");
    auto [found, inserted] = kernel_index.try_emplace(name, summary.kernels.size());
    if (inserted) {
      ProfiledKernel kernel;
      kernel.name = name;
      kernel.grid_size = grid_column ? row[*grid_column] : std::string();
      kernel.block_size = block_column ? row[*block_column] : std::string();
      summary.kernels.push_back(std::move(kernel));
      values.emplace_back(metric_columns.size());
      units.emplace_back(metric_columns.size());
    }
    const std::size_t k = found->second;
    summary.kernels[k].launches++;
    summary.launches++;
    for (std::size_t m = 0; m < metric_columns.size(); ++m) {
      const std::size_t column = metric_columns[m];
      if (const std::optional<double> raw = parse_ncu_number(row[column])) {
        auto [value, unit] = normalize_ncu_value(*raw, unit_of(column));
        values[k][m].push_back(value);
        units[k][m] = std::move(unit);
      }
    }
    if (duration_column) {
      const std::optional<double> raw = parse_ncu_number(row[*duration_column]);
      if (raw) {
        summary.duration_ns += normalize_ncu_value(*raw, unit_of(*duration_column)).first;
      } else {
        summary.duration_complete = false;
      }
    }
  }
  for (std::size_t k = 0; k < summary.kernels.size(); ++k) {
    for (std::size_t m = 0; m < metric_columns.size(); ++m) {
      if (values[k][m].empty()) {
        continue;
      }
      summary.kernels[k].metrics.push_back(
          ProfileMetric{table.columns[metric_columns[m]], units[k][m], median(values[k][m])});
    }
  }
  return summary;
}

std::string ncu_error_summary(std::string_view output) {
  std::vector<std::string> errors;
  bool counters_restricted = false;
  std::size_t pos = 0;
  while (pos < output.size()) {
    std::size_t end = output.find('\n', pos);
    if (end == std::string_view::npos) {
      end = output.size();
    }
    const std::string_view line = output.substr(pos, end - pos);
    pos = end + 1;
    if (line.find("==ERROR==") == std::string_view::npos) {
      continue;
    }
    counters_restricted = counters_restricted || line.find("ERR_NVGPUCTRPERM") != line.npos;
    std::string error = trimmed(line);
    if (errors.size() < 3 && std::find(errors.begin(), errors.end(), error) == errors.end()) {
      errors.push_back(std::move(error));
    }
  }
  std::string summary;
  for (const std::string& error : errors) {
    summary += (summary.empty() ? "" : "; ") + error;
  }
  if (counters_restricted) {
    summary += " (this machine lets only administrators read the GPU's performance counters; "
               "aisp never changes that setting)";
  }
  return summary;
}

bool ncu_profiled_no_kernels(std::string_view output) {
  return output.find("No kernels were profiled") != std::string_view::npos;
}

}  // namespace aisp
