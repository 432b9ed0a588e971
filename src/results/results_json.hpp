// The JSON form of RunResults: results.json (the whole run, versioned) and results.jsonl (one
// PairResult per line, written as pairs finish). docs/results-schema.md documents every field.
//
// Every struct in aisp/result.hpp round-trips exactly: doubles are written in their shortest
// exact form, optionals are absent when unset, enums are their snake_case names. JSON has no NaN
// or infinity, so a non-finite double is written as null and reads back as NaN.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"
#include "core/result_names.hpp"

namespace aisp {

// A results file or JSON value that is not what this build writes. what() names the file (when
// there is one), the JSON path of the bad field and what was expected:
// "run/results.json: pairs[3].speedup.ci_low: expected a number, got a string \"fast\"".
class ResultsFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A file aisp must write and cannot: a directory that is a file, read-only or full. what() names
// the file, the step that failed and the system's reason. Not a bug: the CLI exits 1 with it.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const PairResult& result);
// Throws ResultsFormatError. Keys this build does not know are ignored.
PairResult pair_result_from_json(const nlohmann::json& value);

nlohmann::json to_json(const RunResults& results);
// Throws ResultsFormatError, also for a schema_version outside
// kOldestReadableResultsSchemaVersion..kResultsSchemaVersion. Files of older versions read as
// their layout implies (version 1: the gate phase).
RunResults run_results_from_json(const nlohmann::json& value);

// Reads a results.json. Throws ResultsFormatError naming the file for malformed content and
// std::runtime_error when the file cannot be read.
RunResults load_run_results(const std::filesystem::path& results_json);

// One compact line (no newline inside or at the end) for the results.jsonl stream: the pair's
// JSON object plus "schema_version". Invalid UTF-8 in strings is replaced, never thrown on.
std::string to_json_line(const PairResult& result);

// Reads a results.jsonl stream, for runs whose results.json is missing. A last line without its
// newline that does not parse is a write cut short (Ctrl-C) and is dropped; any other bad line
// throws ResultsFormatError naming "<file>:<line number>".
std::vector<PairResult> load_json_lines(const std::filesystem::path& results_jsonl);

// Writes `text` to a hidden temporary file in the same directory, flushes it to disk and renames
// it over `path`, so readers (and a Ctrl-C) see either the old file or the new one, never half of
// one. Throws FileWriteError naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// write_file_atomically of `value` pretty-printed: 2-space indent, trailing newline, invalid
// UTF-8 in strings replaced.
void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace aisp
