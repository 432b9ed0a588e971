#include "policy/expectations.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "results/json_fields.hpp"
#include "results/result_text.hpp"
#include "results/results_json.hpp"

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
  json object{
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
  if (entry.library_fraction) {
    object["library"] = entry.library;
    object["library_fraction"] = rounded(*entry.library_fraction);
    object["library_fraction_ci_low"] = rounded(entry.library_fraction_ci_low.value_or(NAN));
    object["library_fraction_ci_high"] = rounded(entry.library_fraction_ci_high.value_or(NAN));
  }
  if (entry.threshold) {
    object["threshold"] = json_fields::number_to_json(*entry.threshold);
    object["threshold_reason"] = entry.threshold_reason;
  }
  return object;
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
  if (const json* library_fraction = fields.optional("library_fraction");
      library_fraction != nullptr && !library_fraction->is_null()) {
    entry.library_fraction =
        json_fields::read_number(*library_fraction, fields.path_of("library_fraction"));
    entry.library_fraction_ci_low = fields.number("library_fraction_ci_low");
    entry.library_fraction_ci_high = fields.number("library_fraction_ci_high");
    entry.library = fields.string("library");
  }
  if (const json* threshold = fields.optional("threshold");
      threshold != nullptr && !threshold->is_null()) {
    entry.threshold = json_fields::read_number(*threshold, fields.path_of("threshold"));
    if (!(*entry.threshold >= 0 && *entry.threshold < 10)) {
      throw JsonFieldError(fmt::format("{}: {} is not a threshold: a fraction such as 0.2 for 20%",
                                       fields.path_of("threshold"), *entry.threshold));
    }
    entry.threshold_reason = fields.string("threshold_reason");
    if (entry.threshold_reason.empty()) {
      throw JsonFieldError(fmt::format("{}: say why this pair needs a wider threshold (the "
                                       "measurements that show it)",
                                       fields.path_of("threshold_reason")));
    }
  }
  return entry;
}

std::map<std::string, ExpectationEntry> expectations_from_json(const json& value,
                                                               const std::string& file_stem) {
  const ObjectFields fields(value, "");
  const long long version =
      fields.schema_version(kExpectationsSchemaVersion, kExpectationsSchemaVersion);
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
  return result_text::shows_speedup(pair) && pair.baseline && pair.optimized &&
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
  if (result_text::shows_library_fraction(pair)) {
    entry.library = pair.library->library;
    entry.library_fraction = pair.library->fraction->value;
    entry.library_fraction_ci_low = pair.library->fraction->ci_low;
    entry.library_fraction_ci_high = pair.library->fraction->ci_high;
  }
  entry.gpu = provenance.gpu;
  entry.git_commit = recorded_commit(provenance);
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

// A commit as messages show it: a full hash cut to 12 characters (git's short form), the
// "-dirty" suffix kept.
std::string short_commit(std::string_view commit) {
  constexpr std::string_view kDirty = "-dirty";
  constexpr std::size_t kShown = 12;
  const bool dirty = commit.ends_with(kDirty);
  std::string_view hash = dirty ? commit.substr(0, commit.size() - kDirty.size()) : commit;
  const bool hex = hash.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  if (hex && hash.size() > kShown) {
    hash = hash.substr(0, kShown);
  }
  return std::string(hash) + (dirty ? std::string(kDirty) : std::string());
}

// "NVIDIA H200, commit a3c7892717b5, 2026-11-22, run 20261122-012846-bd2f"
std::string describe_source(const ExpectationEntry& entry) {
  return fmt::format("{}, commit {}, {}, run {}", entry.gpu, short_commit(entry.git_commit),
                     entry.date, entry.run_id);
}

// Whether two recorded commits name the same code: equal, or one hash a prefix (of 7 characters
// or more) of the other. A dirty or unknown commit names no code, so it equals nothing.
bool same_commit(std::string_view a, std::string_view b) {
  constexpr std::size_t kShortestHash = 7;
  const auto identifies_code = [](std::string_view commit) {
    return !commit.empty() && commit != "unknown" && !commit.ends_with("-dirty");
  };
  if (!identifies_code(a) || !identifies_code(b)) {
    return false;
  }
  if (a == b) {
    return true;
  }
  return std::min(a.size(), b.size()) >= kShortestHash && (a.starts_with(b) || b.starts_with(a));
}

// A file the update would leave with entries of another GPU or commit beside this run's: what
// differs, in a sentence.
std::string describe_mixed_file(const std::filesystem::path& file,
                                const std::vector<std::string>& kept_targets,
                                const std::set<std::string>& kept_sources,
                                const ExpectationProvenance& provenance) {
  constexpr std::size_t kTargetsNamed = 3;
  std::string targets;
  for (std::size_t i = 0; i < kept_targets.size() && i < kTargetsNamed; ++i) {
    targets += (i == 0 ? "" : ", ") + kept_targets[i];
  }
  if (kept_targets.size() > kTargetsNamed) {
    targets += fmt::format(" and {} more", kept_targets.size() - kTargetsNamed);
  }
  std::string sources;
  for (const std::string& source : kept_sources) {
    sources += (sources.empty() ? "" : " and ") + source;
  }
  return fmt::format("{}: {} entr{} this run does not re-record ({}) {} recorded on {}, this run "
                     "is on {} at commit {}",
                     file.string(), kept_targets.size(), kept_targets.size() == 1 ? "y" : "ies",
                     targets, kept_targets.size() == 1 ? "was" : "were", sources, provenance.gpu,
                     short_commit(recorded_commit(provenance)));
}

// "+31%", "-4.2%": how far `measured` is from `recorded`.
std::string percent_change(double measured, double recorded) {
  const double change = measured / recorded - 1;
  return (change >= 0 ? "+" : "-") + result_text::format_percent(std::fabs(change));
}

// The note on absolute times: the medians against the recorded ones, and a warning when both
// variants moved the same way by more than the threshold (the speedup can hold while both slow).
std::string time_note(const PairResult& pair, const ExpectationEntry& expected, double threshold) {
  const double baseline = pair.baseline->stats.median;
  const double optimized = pair.optimized->stats.median;
  if (!(expected.baseline_ms > 0) || !(expected.optimized_ms > 0) || !std::isfinite(baseline) ||
      !std::isfinite(optimized)) {
    return {};
  }
  std::string note = fmt::format("; medians against the recorded ones: baseline {} ({} vs {}), "
                                 "optimized {} ({} vs {})",
                                 percent_change(baseline, expected.baseline_ms),
                                 result_text::format_duration_ms(baseline),
                                 result_text::format_duration_ms(expected.baseline_ms),
                                 percent_change(optimized, expected.optimized_ms),
                                 result_text::format_duration_ms(optimized),
                                 result_text::format_duration_ms(expected.optimized_ms));
  const double baseline_ratio = baseline / expected.baseline_ms;
  const double optimized_ratio = optimized / expected.optimized_ms;
  if (baseline_ratio > 1 + threshold && optimized_ratio > 1 + threshold) {
    note += "; both variants are slower than recorded: look at the clocks, power and load of the "
            "machine, or code both variants share";
  } else if (baseline_ratio < 1 / (1 + threshold) && optimized_ratio < 1 / (1 + threshold)) {
    note += "; both variants are faster than recorded";
  }
  return note;
}

enum class RatioVerdict { regression, improvement, as_expected };

// A measured ratio's interval against a recorded one widened by the threshold on a log scale:
// wholly below it is a regression, wholly above an improvement.
RatioVerdict judge_ratio(const Speedup& measured, double expected_ci_low, double expected_ci_high,
                         double threshold) {
  if (measured.ci_high < expected_ci_low / (1 + threshold)) {
    return RatioVerdict::regression;
  }
  if (measured.ci_low > expected_ci_high * (1 + threshold)) {
    return RatioVerdict::improvement;
  }
  return RatioVerdict::as_expected;
}

// The fraction of the library reference against the recorded one, judged as the speedup is; it
// turns the verdict into a regression when it regressed, and an as-expected speedup into an
// improvement when it improved. Returns the words for the detail ("" when neither side has one).
std::string library_fraction_note(const PairResult& pair, const ExpectationEntry& expected,
                                  double threshold, ExpectationCheck& check) {
  const bool measured = result_text::shows_library_fraction(pair);
  if (!expected.library_fraction) {
    return {};
  }
  check.expected_library_fraction = expected.library_fraction;
  check.expected_library_fraction_ci_low = expected.library_fraction_ci_low;
  check.expected_library_fraction_ci_high = expected.library_fraction_ci_high;
  Speedup recorded;
  recorded.value = *expected.library_fraction;
  recorded.ci_low = expected.library_fraction_ci_low.value_or(recorded.value);
  recorded.ci_high = expected.library_fraction_ci_high.value_or(recorded.value);
  const std::string expected_text =
      fmt::format("{} of {}", result_text::format_library_fraction(recorded), expected.library);
  if (!measured) {
    return fmt::format("; fraction of {}: none measured in this run (expected {}), not judged",
                       expected.library, expected_text);
  }
  const Speedup& fraction = *pair.library->fraction;
  const std::string measured_text = fmt::format(
      "{} of {}", result_text::format_library_fraction(fraction), pair.library->library);
  switch (judge_ratio(fraction, recorded.ci_low, recorded.ci_high, threshold)) {
  case RatioVerdict::regression:
    check.verdict = "regression";
    return fmt::format("; fraction of the library regressed: measured {}, below the expected {} "
                       "by more than {:g}%",
                       measured_text, expected_text, threshold * 100);
  case RatioVerdict::improvement:
    if (check.verdict == "as_expected") {
      check.verdict = "improvement";
    }
    return fmt::format("; fraction of the library improved: measured {}, above the expected {} by "
                       "more than {:g}%",
                       measured_text, expected_text, threshold * 100);
  case RatioVerdict::as_expected:
    break;
  }
  return fmt::format("; fraction of the library as expected: measured {}, expected {}",
                     measured_text, expected_text);
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
  } catch (const json::exception& parse_error) {  // parse_error, or out_of_range for 1e400
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

std::string recorded_commit(const ExpectationProvenance& provenance) {
  if (provenance.git_commit == "unknown" || !provenance.source_dirty) {
    return provenance.git_commit;
  }
  return provenance.git_commit + "-dirty";
}

void check_expectations_update(
    const std::map<std::string, std::set<std::string>>& targets_by_chapter,
    const std::map<std::string, std::filesystem::path>& chapter_dir_by_chapter,
    const std::string& hardware_key, const ExpectationProvenance& provenance,
    const ExpectationUpdateOptions& options) {
  if (provenance.source_dirty && !options.allow_dirty) {
    const bool unknown = provenance.git_commit == "unknown";
    throw ExpectationsRefused(fmt::format(
        "refusing to record expectations: {}, so the recorded commit would not identify the code "
        "that was measured. {}, or pass --allow-dirty to record the commit as \"{}\"",
        unknown ? "the git commit of the measured source is unknown (no git, or a copy of the "
                  "tree without .git)"
                : fmt::format("the source tree at commit {} has uncommitted changes (git status "
                              "is not clean)",
                              short_commit(provenance.git_commit)),
        unknown ? "Run from a git checkout, or set AISP_GIT_COMMIT and AISP_GIT_DIRTY=0 when the "
                  "copy is of a clean commit"
                : "Commit the changes and run again",
        recorded_commit(provenance)));
  }
  if (options.allow_mixed_provenance) {
    return;
  }
  const std::string commit = recorded_commit(provenance);
  std::vector<std::string> mixed_files;
  std::set<std::string> chapters_to_rerun;
  for (const auto& [chapter, targets] : targets_by_chapter) {
    const auto dir = chapter_dir_by_chapter.find(chapter);
    if (dir == chapter_dir_by_chapter.end()) {
      throw std::invalid_argument(fmt::format(
          "cannot record expectations for chapter \"{}\": no folder is known for it", chapter));
    }
    const std::filesystem::path file = expectations_file(dir->second, hardware_key);
    std::vector<std::string> kept_targets;
    std::set<std::string> kept_sources;
    for (const auto& [target, entry] : load_expectations(file)) {
      if (targets.count(target) > 0) {
        continue;  // replaced by this update
      }
      if (entry.gpu != provenance.gpu || !same_commit(entry.git_commit, commit)) {
        kept_targets.push_back(target);
        kept_sources.insert(
            fmt::format("{} at commit {}", entry.gpu, short_commit(entry.git_commit)));
      }
    }
    if (!kept_targets.empty()) {
      mixed_files.push_back(describe_mixed_file(file, kept_targets, kept_sources, provenance));
      chapters_to_rerun.insert(chapter);
    }
  }
  if (mixed_files.empty()) {
    return;
  }
  std::string files;
  for (const std::string& file : mixed_files) {
    files += (files.empty() ? "" : "; ") + file;
  }
  std::string rerun;
  for (const std::string& chapter : chapters_to_rerun) {
    rerun += (rerun.empty() ? "" : " ") + fmt::format("-t {}", chapter);
  }
  throw ExpectationsRefused(fmt::format(
      "refusing to update expectations: the file{} would mix provenance (entries of another GPU "
      "or commit beside this run's). {}. Re-run every target of the chapter ({}) so that the file "
      "is re-recorded by one run, remove the entries of targets that no longer exist, or pass "
      "--allow-mixed-provenance to keep the older entries beside the new ones",
      mixed_files.size() == 1 ? "" : "s", files, rerun));
}

int update_expectations(const RunResults& results,
                        const std::map<std::string, std::filesystem::path>& chapter_dir_by_chapter,
                        const std::string& hardware_key, const ExpectationProvenance& provenance,
                        const ExpectationUpdateOptions& options) {
  if (!is_valid_hardware_key(hardware_key)) {
    throw std::invalid_argument(fmt::format(
        "hardware key \"{}\" is not valid: use lower-case letters, digits, '_', '+' and '-' "
        "(h200, h100_sxm, 2x_h200, h100_sxm+2x_l40s)",
        hardware_key));
  }
  check_provenance(provenance);

  // Group first and check every chapter is known, so a bad call writes nothing.
  std::map<std::string, std::map<std::string, ExpectationEntry>> new_entries_by_chapter;
  std::map<std::string, std::set<std::string>> targets_by_chapter;
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
    targets_by_chapter[pair.chapter].insert(pair.target);
  }
  check_expectations_update(targets_by_chapter, chapter_dir_by_chapter, hardware_key, provenance,
                            options);

  int written = 0;
  for (const auto& [chapter, new_entries] : new_entries_by_chapter) {
    const std::filesystem::path file =
        expectations_file(chapter_dir_by_chapter.at(chapter), hardware_key);
    std::map<std::string, ExpectationEntry> merged = load_expectations(file);
    for (const auto& [target, entry] : new_entries) {
      ExpectationEntry recorded = entry;
      if (const auto kept = merged.find(target); kept != merged.end() && kept->second.threshold) {
        recorded.threshold = kept->second.threshold;  // set by hand: a run never changes it
        recorded.threshold_reason = kept->second.threshold_reason;
      }
      merged[target] = recorded;
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

ExpectationCheck check_against_expectation(const PairResult& pair, const ExpectationEntry* expected,
                                           const std::string& hardware_key, double threshold) {
  ExpectationCheck check;
  check.hardware_key = hardware_key;
  if (expected != nullptr && expected->threshold && *expected->threshold > threshold) {
    threshold = *expected->threshold;  // the pair's own, wider threshold
  }
  check.threshold = threshold;
  if (!is_recordable(pair)) {
    check.verdict = "not_compared";
    check.detail = pair.status != PairStatus::passed
                       ? fmt::format("the pair's status is {}: no speedup to compare",
                                     pair_status_name(pair.status))
                   : !pair.verification.passed
                       ? std::string("the outputs did not verify: the pair is quarantined")
                       : std::string("no speedup was measured (not timed)");
    return check;
  }
  const std::string measured = result_text::format_speedup(*pair.speedup);
  if (expected == nullptr) {
    check.verdict = "no_expectation";
    check.detail = fmt::format("measured {}; nothing is recorded for {} under hardware key {} "
                               "(`bench run --update-expectations` records it)",
                               measured, pair.target, hardware_key);
    return check;
  }
  check.expected_speedup = expected->speedup;
  check.expected_ci_low = expected->speedup_ci_low;
  check.expected_ci_high = expected->speedup_ci_high;
  check.expected_baseline_ms = expected->baseline_ms;
  check.expected_optimized_ms = expected->optimized_ms;
  check.recorded = describe_source(*expected);
  const std::string expected_text = result_text::format_speedup(expected_speedup(*expected));
  const std::string band = fmt::format("{:g}%", threshold * 100);
  const RatioVerdict speedup_verdict =
      judge_ratio(*pair.speedup, expected->speedup_ci_low, expected->speedup_ci_high, threshold);
  if (speedup_verdict == RatioVerdict::regression) {
    check.verdict = "regression";
    check.detail =
        fmt::format("measured {}, below the expected {} by more than {} (the interval "
                    "ends under {})",
                    measured, expected_text, band,
                    result_text::format_ratio(expected->speedup_ci_low / (1 + threshold)));
  } else if (speedup_verdict == RatioVerdict::improvement) {
    check.verdict = "improvement";
    check.detail =
        fmt::format("measured {}, above the expected {} by more than {} (the interval "
                    "starts over {}); record it once the change is understood",
                    measured, expected_text, band,
                    result_text::format_ratio(expected->speedup_ci_high * (1 + threshold)));
  } else {
    check.verdict = "as_expected";
    check.detail = fmt::format("measured {}, expected {}: not clearly more than {} away", measured,
                               expected_text, band);
  }
  check.detail += library_fraction_note(pair, *expected, threshold, check);
  if (expected->threshold && *expected->threshold == threshold) {
    check.detail += fmt::format(" (this pair's threshold: {})", expected->threshold_reason);
  }
  check.detail += time_note(pair, *expected, threshold);
  return check;
}

std::vector<ExpectationCheck>
compare_with_expectations(const RunResults& results,
                          const std::map<std::string, ExpectationEntry>& expectations,
                          const std::string& hardware_key, double threshold) {
  std::vector<ExpectationCheck> checks;
  checks.reserve(results.pairs.size());
  for (const PairResult& pair : results.pairs) {
    checks.push_back(check_with_expectations(pair, expectations, hardware_key, threshold));
  }
  return checks;
}

ExpectationCheck check_with_expectations(
    const PairResult& pair, const std::map<std::string, ExpectationEntry>& expectations,
    const std::string& hardware_key, double threshold) {
  const auto found = expectations.find(pair.target);
  return check_against_expectation(pair, found == expectations.end() ? nullptr : &found->second,
                                   hardware_key, threshold);
}

}  // namespace aisp
