// Typed reading of JSON files the harness writes (results, expectations). Every error names the
// JSON path of the bad field and what was expected, so a reader can find it in the file:
// "pairs[3].speedup.ci_low: expected a number, got a string \"fast\"".
// Internal to src/report; the public readers add the file name in front.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace aisp::json_fields {

// A field that is missing or of the wrong type; what() is "<json path>: <what was expected>".
class JsonFieldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "pairs[3]" + "speedup" -> "pairs[3].speedup"; keys that are not identifiers are quoted:
// "entries" + "ch07:x" -> "entries[\"ch07:x\"]". An empty parent gives the key alone.
std::string member_path(std::string_view parent, std::string_view key);
// "pairs" + 3 -> "pairs[3]".
std::string element_path(std::string_view parent, std::size_t index);

// "null", "a boolean", "a string \"abc\"", "an object", ... for error messages.
std::string describe_value(const nlohmann::json& value);

// A parse error without nlohmann's "[json.exception.parse_error.101] " prefix:
// "parse error at line 3, column 5: syntax error while parsing value - ...". Also the parser's
// other exception, a number beyond double range: "number overflow parsing '1e400', a number beyond
// the range of a double".
std::string describe_parse_error(const nlohmann::json::exception& error);

[[noreturn]] void fail(std::string_view path, std::string_view expected, const nlohmann::json& got);

// A double as JSON: JSON has no NaN or infinity, so non-finite values are written as null.
nlohmann::json number_to_json(double value);

// Readers for one value at `path`. A null number reads as NaN (the encoding of non-finite values).
double read_number(const nlohmann::json& value, std::string_view path);
std::string read_string(const nlohmann::json& value, std::string_view path);
bool read_boolean(const nlohmann::json& value, std::string_view path);
long long read_integer(const nlohmann::json& value, std::string_view path, long long min,
                       long long max);
const nlohmann::json& require_array(const nlohmann::json& value, std::string_view path);

// The members of one JSON object, read by key. Unknown keys are ignored.
class ObjectFields {
 public:
  // Throws JsonFieldError unless `object` is a JSON object.
  ObjectFields(const nlohmann::json& object, std::string path);

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const { return member_path(path_, key); }

  // Throws JsonFieldError "<path>: missing; expected <expected>" when the key is absent.
  const nlohmann::json& required(std::string_view key, std::string_view expected) const;
  // nullptr when the key is absent.
  const nlohmann::json* optional(std::string_view key) const;

  double number(std::string_view key) const;
  std::optional<double> optional_number(std::string_view key) const;
  std::string string(std::string_view key) const;
  bool boolean(std::string_view key) const;
  long long integer(std::string_view key, long long min, long long max) const;
  std::optional<long long> optional_integer(std::string_view key, long long min,
                                            long long max) const;
  ObjectFields object(std::string_view key) const;
  const nlohmann::json& array(std::string_view key) const;
  // The file's "schema_version": an integer, else JsonFieldError "schema_version: expected the
  // integer <newest> (this build reads versions <oldest> to <newest>), got a string "2"". Whether
  // the integer is a readable version is the caller's to say.
  long long schema_version(long long oldest, long long newest) const;

 private:
  const nlohmann::json& object_;
  std::string path_;
};

}  // namespace aisp::json_fields
