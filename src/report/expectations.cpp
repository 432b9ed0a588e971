#include "report/expectations.hpp"

#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/json_fields.hpp"
#include "report/report_format.hpp"
#include "report/results_json.hpp"

namespace aisp {
namespace {

using json_fields::JsonFieldError;
using json_fields::ObjectFields;
using nlohmann::json;

constexpr int kSignificantDigits = 4;

// Fewer digits than a double holds: the last ones are noise, and rounding keeps the committed
// files readable.
double round_to_significant(double value) {
  if (value == 0 || !std::isfinite(value)) {
    return value;
  }
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const double scale = std::pow(10.0, kSignificantDigits - 1 - magnitude);
  return std::round(value * scale) / scale;
}

json rounded(double value) { return json_fields::number_to_json(round_to_significant(value)); }

json entry_to_json(const ExpectationEntry& entry) {
  return json{
      {"baseline_ms", rounded(entry.baseline_ms)},
      {"optimized_ms", rounded(entry.optimized_ms)},
      {"speedup", rounded(entry.speedup)},
      {"speedup_ci_low", rounded(entry.speedup_ci_low)},
      {"speedup_ci_high", rounded(entry.speedup_ci_high)},
      {"roofline_fraction",
       entry.roofline_fraction ? rounded(*entry.roofline_fraction) : json(nullptr)},
      {"ceiling", entry.ceiling.empty() ? json(nullptr) : json(entry.ceiling)},
      {"gpu", entry.gpu},
      {"git_commit", entry.git_commit},
      {"date", entry.date},
      {"run_id", entry.run_id},
  };
}

ExpectationEntry entry_from_json(const ObjectFields& fields) {
  ExpectationEntry entry;
  entry.baseline_ms = fields.number("baseline_ms");
  entry.optimized_ms = fields.number("optimized_ms");
  entry.speedup = fields.number("speedup");
  entry.speedup_ci_low = fields.number("speedup_ci_low");
  entry.speedup_ci_high = fields.number("speedup_ci_high");
  const json* fraction = fields.optional("roofline_fraction");
  if (fraction != nullptr && !fraction->is_null()) {
    entry.roofline_fraction =
        json_fields::read_number(*fraction, fields.path_of("roofline_fraction"));
  }
  const json* ceiling = fields.optional("ceiling");
  if (ceiling != nullptr && !ceiling->is_null()) {
    entry.ceiling = json_fields::read_string(*ceiling, fields.path_of("ceiling"));
  }
  entry.gpu = fields.string("gpu");
  entry.git_commit = fields.string("git_commit");
  entry.date = fields.string("date");
  entry.run_id = fields.string("run_id");
  return entry;
}

std::map<std::string, ExpectationEntry> expectations_from_json(const json& value,
                                                               const std::string& file_stem) {
  const ObjectFields fields(value, "");
  const long long version = fields.integer("schema_version", INT_MIN, INT_MAX);
  if (version != kExpectationsSchemaVersion) {
    throw JsonFieldError(fmt::format(
        "schema_version {} is not supported: this build of aisp reads expectations schema version "
        "{} only; use the aisp build that wrote the file, or re-record the expectations",
        version, kExpectationsSchemaVersion));
  }
  const std::string hardware_key = fields.string("hardware_key");
  if (hardware_key != file_stem) {
    throw JsonFieldError(fmt::format("hardware_key: \"{}\" does not match the file name {}.json; "
                                     "rename the file or fix the key",
                                     hardware_key, file_stem));
  }
  const ObjectFields entries = fields.object("entries");
  std::map<std::string, ExpectationEntry> by_target;
  for (const auto& [target, entry] : value.at("entries").items()) {
    by_target.emplace(target, entry_from_json(ObjectFields(entry, entries.path_of(target))));
  }
  return by_target;
}

bool is_valid_hardware_key(const std::string& key) {
  if (key.empty()) {
    return false;
  }
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+' || c == '-')) {
      return false;
    }
  }
  return true;
}

bool is_iso_date(const std::string& date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') {
    return false;
  }
  for (std::size_t i = 0; i < date.size(); ++i) {
    if (i != 4 && i != 7 && !(date[i] >= '0' && date[i] <= '9')) {
      return false;
    }
  }
  return true;
}

void check_provenance(const ExpectationProvenance& provenance) {
  const std::pair<const char*, const std::string*> fields[] = {
      {"gpu", &provenance.gpu},
      {"git_commit", &provenance.git_commit},
      {"date", &provenance.date},
      {"run_id", &provenance.run_id},
  };
  for (const auto& [name, value] : fields) {
    if (value->empty()) {
      throw std::invalid_argument(fmt::format(
          "cannot record expectations without provenance: {} is empty; expectations are written "
          "only from real runs whose GPU, commit, date and run id are known",
          name));
    }
  }
  if (!is_iso_date(provenance.date)) {
    throw std::invalid_argument(
        fmt::format("cannot record expectations: date \"{}\" is not YYYY-MM-DD", provenance.date));
  }
}

// Pairs whose numbers may become expectations: passed, verified, both variants measured.
bool is_recordable(const PairResult& pair) {
  return report_format::shows_speedup(pair) && pair.baseline && pair.optimized &&
         pair.baseline->stats.count > 0 && pair.optimized->stats.count > 0;
}

ExpectationEntry entry_from_result(const PairResult& pair,
                                   const ExpectationProvenance& provenance) {
  ExpectationEntry entry;
  entry.baseline_ms = pair.baseline->stats.median;
  entry.optimized_ms = pair.optimized->stats.median;
  entry.speedup = pair.speedup->value;
  entry.speedup_ci_low = pair.speedup->ci_low;
  entry.speedup_ci_high = pair.speedup->ci_high;
  if (pair.roofline) {
    entry.roofline_fraction = pair.roofline->fraction;
    entry.ceiling = pair.roofline->ceiling;
  }
  entry.gpu = provenance.gpu;
  entry.git_commit = provenance.git_commit;
  entry.date = provenance.date;
  entry.run_id = provenance.run_id;
  return entry;
}

Speedup expected_speedup(const ExpectationEntry& entry) {
  Speedup speedup;
  speedup.value = entry.speedup;
  speedup.ci_low = entry.speedup_ci_low;
  speedup.ci_high = entry.speedup_ci_high;
  return speedup;
}

std::string describe_source(const ExpectationEntry& entry) {
  return fmt::format("recorded on {} by run {} on {}, commit {}", entry.gpu, entry.run_id,
                     entry.date, entry.git_commit);
}

}  // namespace

std::map<std::string, ExpectationEntry> load_expectations(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    return {};
  }
  std::ifstream stream(file, std::ios::binary);
  if (!stream) {
    throw std::runtime_error(fmt::format("cannot read expectations file {}: {}", file.string(),
                                         std::generic_category().message(errno)));
  }
  std::ostringstream text;
  text << stream.rdbuf();
  const std::string restore_hint =
      fmt::format("fix the file, or restore it with `git checkout -- {}`", file.string());
  json value;
  try {
    value = json::parse(text.str());
  } catch (const json::parse_error& parse_error) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({}); {}", file.string(),
                                         json_fields::describe_parse_error(parse_error),
                                         restore_hint));
  }
  try {
    return expectations_from_json(value, file.stem().string());
  } catch (const JsonFieldError& field_error) {
    throw std::runtime_error(
        fmt::format("{}: {}; {}", file.string(), field_error.what(), restore_hint));
  }
}

std::filesystem::path expectations_file(const std::filesystem::path& chapter_dir,
                                        const std::string& hardware_key) {
  return chapter_dir / "expectations" / (hardware_key + ".json");
}

int update_expectations(const RunResults& results,
                        const std::map<std::string, std::filesystem::path>& chapter_dir_by_chapter,
                        const std::string& hardware_key, const ExpectationProvenance& provenance) {
  if (!is_valid_hardware_key(hardware_key)) {
    throw std::invalid_argument(fmt::format(
        "hardware key \"{}\" is not valid: use lower-case letters, digits, '_', '+' and '-' "
        "(h200, h100_sxm, 2x_h200, h100_sxm+2x_l40s)",
        hardware_key));
  }
  check_provenance(provenance);

  // Group first and check every chapter is known, so a bad call writes nothing.
  std::map<std::string, std::map<std::string, ExpectationEntry>> new_entries_by_chapter;
  for (const PairResult& pair : results.pairs) {
    if (!is_recordable(pair)) {
      continue;
    }
    if (chapter_dir_by_chapter.find(pair.chapter) == chapter_dir_by_chapter.end()) {
      throw std::invalid_argument(
          fmt::format("cannot record the expectation of {}: no folder is known for chapter \"{}\"",
                      pair.target, pair.chapter));
    }
    new_entries_by_chapter[pair.chapter][pair.target] = entry_from_result(pair, provenance);
  }

  int written = 0;
  for (const auto& [chapter, new_entries] : new_entries_by_chapter) {
    const std::filesystem::path file =
        expectations_file(chapter_dir_by_chapter.at(chapter), hardware_key);
    std::map<std::string, ExpectationEntry> merged = load_expectations(file);
    for (const auto& [target, entry] : new_entries) {
      merged[target] = entry;
      ++written;
    }
    json entries = json::object();
    for (const auto& [target, entry] : merged) {
      entries[target] = entry_to_json(entry);
    }
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) {
      throw std::runtime_error(
          fmt::format("cannot create {}: {}", file.parent_path().string(), error.message()));
    }
    write_json_atomically(file, json{{"schema_version", kExpectationsSchemaVersion},
                                     {"hardware_key", hardware_key},
                                     {"entries", std::move(entries)}});
  }
  return written;
}

std::vector<ExpectationComparison>
compare_with_expectations(const RunResults& results,
                          const std::map<std::string, ExpectationEntry>& expectations) {
  std::vector<ExpectationComparison> comparisons;
  for (const PairResult& pair : results.pairs) {
    if (!report_format::shows_speedup(pair)) {
      continue;
    }
    const std::string measured = report_format::format_speedup(*pair.speedup);
    const auto found = expectations.find(pair.target);
    if (found == expectations.end()) {
      comparisons.push_back({pair.target, "no expectation",
                             fmt::format("measured {}; nothing is recorded for this target on "
                                         "this hardware",
                                         measured)});
      continue;
    }
    const ExpectationEntry& expected = found->second;
    const std::string expected_text = report_format::format_speedup(expected_speedup(expected));
    if (pair.speedup->ci_high < expected.speedup_ci_low) {
      comparisons.push_back({pair.target, "regression",
                             fmt::format("measured {}, entirely below the expected {} ({})",
                                         measured, expected_text, describe_source(expected))});
    } else if (pair.speedup->ci_low > expected.speedup_ci_high) {
      comparisons.push_back(
          {pair.target, "improvement",
           fmt::format("measured {}, entirely above the expected {} ({}); update the "
                       "expectations if the change is intended",
                       measured, expected_text, describe_source(expected))});
    } else {
      comparisons.push_back({pair.target, "within expectation",
                             fmt::format("measured {}, overlapping the expected {} ({})", measured,
                                         expected_text, describe_source(expected))});
    }
  }
  return comparisons;
}

}  // namespace aisp
