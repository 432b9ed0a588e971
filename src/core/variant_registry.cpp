// The registration list and the rules that turn a variant's source path into its chapter, role and
// name. Registration runs during static initialization, before main(), so it never throws or
// aborts: a misnamed file becomes a registration problem that the CLI reports.
#include "core/variant_registry.hpp"

#include <cctype>
#include <stdexcept>
#include <utility>

namespace aisp {
namespace {

constexpr std::string_view kBaselinePrefix = "baseline_";
constexpr std::string_view kOptimizedPrefix = "optimized_";
constexpr std::string_view kLabsFolder = "labs";

// The registration list and its problems. A function-local static, so registrations from other
// translation units' static initializers find it constructed whatever the link order.
struct Registry {
  std::vector<VariantInfo> variants;
  std::vector<std::string> problems;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Splits on '/' (and '\\', for paths written on Windows), dropping empty components.
std::vector<std::string> path_components(const std::string& path) {
  std::vector<std::string> components;
  std::string current;
  for (char c : path) {
    if (c == '/' || c == '\\') {
      if (!current.empty()) {
        components.push_back(std::move(current));
      }
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) {
    components.push_back(std::move(current));
  }
  return components;
}

// A variant name becomes part of a target ("ch07:<name>"): letters, digits and '_', starting with
// a letter or digit.
bool is_valid_variant_name(std::string_view name) {
  if (name.empty() || !is_alnum(name.front())) {
    return false;
  }
  for (char c : name) {
    if (!is_alnum(c) && c != '_') {
      return false;
    }
  }
  return true;
}

// A lab folder becomes part of a target ("labs/<lab>:<name>"): no ':' and no spaces.
bool is_valid_lab_name(std::string_view name) {
  if (name.empty() || name.front() == '.') {
    return false;
  }
  for (char c : name) {
    if (!is_alnum(c) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

[[noreturn]] void throw_bad_path(const std::string& source_path, const std::string& what) {
  throw std::invalid_argument("cannot register the variant in '" + source_path + "': " + what);
}

}  // namespace

std::optional<std::string> chapter_of_folder(std::string_view folder) {
  if (folder.size() < 3 || folder.substr(0, 2) != "ch" || !is_digit(folder[2])) {
    return std::nullopt;
  }
  std::size_t digits_end = 2;
  while (digits_end < folder.size() && is_digit(folder[digits_end])) {
    ++digits_end;
  }
  if (digits_end < folder.size() && folder[digits_end] != '_') {
    return std::nullopt;
  }
  std::string_view digits = folder.substr(2, digits_end - 2);
  while (digits.size() > 2 && digits.front() == '0') {
    digits.remove_prefix(1);
  }
  std::string chapter = "ch";
  if (digits.size() < 2) {
    chapter.push_back('0');
  }
  chapter.append(digits);
  return chapter;
}

VariantInfo parse_variant_path(const std::string& source_path) {
  const std::vector<std::string> components = path_components(source_path);
  if (components.empty()) {
    throw_bad_path(source_path, "the path is empty");
  }

  VariantInfo info;
  info.source_path = source_path;
  const std::string& file_name = components.back();
  info.stem = file_name.substr(0, file_name.find('.'));

  std::string_view stem = info.stem;
  if (stem.starts_with(kBaselinePrefix)) {
    info.role = VariantRole::baseline;
    info.name = std::string(stem.substr(kBaselinePrefix.size()));
  } else if (stem.starts_with(kOptimizedPrefix)) {
    info.role = VariantRole::optimized;
    info.name = std::string(stem.substr(kOptimizedPrefix.size()));
  } else {
    throw_bad_path(source_path,
                   "a variant file must be named baseline_<name>.cu|.cpp or "
                   "optimized_<name>[_<suffix>].cu|.cpp; rename the file, or move AISP_VARIANT "
                   "out of it if it holds shared code");
  }
  if (!is_valid_variant_name(info.name)) {
    throw_bad_path(
        source_path,
        "the name after '" +
            std::string(info.role == VariantRole::baseline ? kBaselinePrefix : kOptimizedPrefix) +
            "' must be letters, digits and '_', starting with a letter "
            "or digit; got '" +
            info.name + "'");
  }

  // The nearest enclosing folder that is a chapter (chNN or chNN_<topic>) or a lab (a folder
  // directly under one named labs) decides; folders in between (e.g. kernels/) are allowed.
  for (std::size_t i = components.size() - 1; i-- > 0;) {
    const std::string& folder = components[i];
    if (i > 0 && components[i - 1] == kLabsFolder) {
      if (!is_valid_lab_name(folder)) {
        throw_bad_path(source_path, "the lab folder name '" + folder +
                                        "' must be letters, digits, '_', '-' and '.'; rename "
                                        "the folder");
      }
      info.chapter = std::string(kLabsFolder) + "/" + folder;
      info.folder = folder;
      return info;
    }
    if (std::optional<std::string> chapter = chapter_of_folder(folder)) {
      info.chapter = std::move(*chapter);
      info.folder = folder;
      return info;
    }
  }
  throw_bad_path(source_path,
                 "it is not inside a chapter folder (chNN or chNN_<topic>, e.g. "
                 "chapters/ch07_memory_access/) or a lab folder (labs/<lab>/); move the file "
                 "into one");
}

const std::vector<VariantInfo>& registered_variants() { return registry().variants; }

const std::vector<std::string>& registration_problems() { return registry().problems; }

bool register_variant(const char* source_path, BenchmarkFactory factory) {
  Registry& list = registry();
  const std::string path = source_path != nullptr ? source_path : "";
  if (!factory) {
    list.problems.push_back("cannot register the variant in '" + path +
                            "': its factory is empty; register it with AISP_VARIANT(Class)");
    return false;
  }
  try {
    VariantInfo info = parse_variant_path(path);
    info.factory = std::move(factory);
    list.variants.push_back(std::move(info));
    return true;
  } catch (const std::exception& error) {
    list.problems.emplace_back(error.what());
    return false;
  }
}

}  // namespace aisp
