#include "results/json_fields.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace aisp::json_fields {
namespace {

bool is_identifier(std::string_view key) {
  if (key.empty()) {
    return false;
  }
  for (char c : key) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !digit) {
      return false;
    }
  }
  return !(key.front() >= '0' && key.front() <= '9');
}

std::string describe_integer_range(long long min, long long max) {
  constexpr long long lowest = std::numeric_limits<long long>::min();
  constexpr long long highest = std::numeric_limits<long long>::max();
  if (min == lowest && max == highest) {
    return "an integer";
  }
  if (min == 0 && max == highest) {
    return "a non-negative integer";
  }
  if (max == highest) {
    return fmt::format("an integer >= {}", min);
  }
  return fmt::format("an integer from {} to {}", min, max);
}

}  // namespace

std::string member_path(std::string_view parent, std::string_view key) {
  if (!is_identifier(key)) {
    return fmt::format("{}[{}]", parent, nlohmann::json(std::string(key)).dump());
  }
  if (parent.empty()) {
    return std::string(key);
  }
  return fmt::format("{}.{}", parent, key);
}

std::string element_path(std::string_view parent, std::size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

std::string describe_value(const nlohmann::json& value) {
  constexpr std::size_t shown_chars = 40;
  switch (value.type()) {
  case nlohmann::json::value_t::null:
    return "null";
  case nlohmann::json::value_t::boolean:
    return fmt::format("a boolean ({})", value.get<bool>());
  case nlohmann::json::value_t::string: {
    std::string text = value.get<std::string>();
    if (text.size() > shown_chars) {
      text = text.substr(0, shown_chars) + "...";
    }
    return "a string " +
           nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  case nlohmann::json::value_t::number_integer:
  case nlohmann::json::value_t::number_unsigned:
  case nlohmann::json::value_t::number_float:
    return "the number " + value.dump();
  case nlohmann::json::value_t::object:
    return "an object";
  case nlohmann::json::value_t::array:
    return "an array";
  default:
    return "a value of another type";
  }
}

std::string describe_parse_error(const nlohmann::json::exception& error) {
  const std::string_view message = error.what();
  const std::size_t prefix_end = message.find("] ");
  std::string text(prefix_end == std::string_view::npos ? message : message.substr(prefix_end + 2));
  constexpr int kNumberOverflow = 406;  // out_of_range.406: "number overflow parsing '1e400'"
  if (error.id == kNumberOverflow) {
    text += ", a number beyond the range of a double";
  }
  return text;
}

void fail(std::string_view path, std::string_view expected, const nlohmann::json& got) {
  throw JsonFieldError(fmt::format("{}: expected {}, got {}", path, expected, describe_value(got)));
}

nlohmann::json number_to_json(double value) {
  if (!std::isfinite(value)) {
    return nullptr;
  }
  return value;
}

double read_number(const nlohmann::json& value, std::string_view path) {
  if (value.is_null()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (!value.is_number()) {
    fail(path, "a number", value);
  }
  return value.get<double>();
}

std::string read_string(const nlohmann::json& value, std::string_view path) {
  if (!value.is_string()) {
    fail(path, "a string", value);
  }
  return value.get<std::string>();
}

bool read_boolean(const nlohmann::json& value, std::string_view path) {
  if (!value.is_boolean()) {
    fail(path, "true or false", value);
  }
  return value.get<bool>();
}

long long read_integer(const nlohmann::json& value, std::string_view path, long long min,
                       long long max) {
  const std::string expected = describe_integer_range(min, max);
  if (value.is_number_unsigned()) {
    const auto unsigned_value = value.get<std::uint64_t>();
    if (unsigned_value > static_cast<std::uint64_t>(max)) {
      fail(path, expected, value);
    }
    return static_cast<long long>(unsigned_value);
  }
  if (!value.is_number_integer()) {
    fail(path, expected, value);
  }
  const auto signed_value = value.get<long long>();
  if (signed_value < min || signed_value > max) {
    fail(path, expected, value);
  }
  return signed_value;
}

const nlohmann::json& require_array(const nlohmann::json& value, std::string_view path) {
  if (!value.is_array()) {
    fail(path, "an array", value);
  }
  return value;
}

ObjectFields::ObjectFields(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {
    fail(path_.empty() ? std::string_view("the top level") : std::string_view(path_), "an object",
         object_);
  }
}

const nlohmann::json& ObjectFields::required(std::string_view key,
                                             std::string_view expected) const {
  const nlohmann::json* value = optional(key);
  if (value == nullptr) {
    throw JsonFieldError(fmt::format("{}: missing; expected {}", path_of(key), expected));
  }
  return *value;
}

const nlohmann::json* ObjectFields::optional(std::string_view key) const {
  const auto found = object_.find(key);
  return found == object_.end() ? nullptr : &*found;
}

double ObjectFields::number(std::string_view key) const {
  return read_number(required(key, "a number"), path_of(key));
}

std::optional<double> ObjectFields::optional_number(std::string_view key) const {
  const nlohmann::json* value = optional(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  return read_number(*value, path_of(key));
}

std::string ObjectFields::string(std::string_view key) const {
  return read_string(required(key, "a string"), path_of(key));
}

bool ObjectFields::boolean(std::string_view key) const {
  return read_boolean(required(key, "true or false"), path_of(key));
}

long long ObjectFields::integer(std::string_view key, long long min, long long max) const {
  return read_integer(required(key, describe_integer_range(min, max)), path_of(key), min, max);
}

std::optional<long long> ObjectFields::optional_integer(std::string_view key, long long min,
                                                        long long max) const {
  const nlohmann::json* value = optional(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  return read_integer(*value, path_of(key), min, max);
}

ObjectFields ObjectFields::object(std::string_view key) const {
  return ObjectFields(required(key, "an object"), path_of(key));
}

long long ObjectFields::schema_version(long long oldest, long long newest) const {
  const std::string expected =
      oldest == newest ? fmt::format("the integer {} (this build reads version {})", newest, newest)
                       : fmt::format("the integer {} (this build reads versions {} to {})", newest,
                                     oldest, newest);
  const nlohmann::json& value = required("schema_version", expected);
  if (!value.is_number_integer()) {
    fail(path_of("schema_version"), expected, value);
  }
  return read_integer(value, path_of("schema_version"), std::numeric_limits<int>::min(),
                      std::numeric_limits<int>::max());
}

const nlohmann::json& ObjectFields::array(std::string_view key) const {
  return require_array(required(key, "an array"), path_of(key));
}

}  // namespace aisp::json_fields
