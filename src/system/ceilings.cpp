// The ceiling names and units, the built-in measured table, and the stored-peaks files.
#include "system/ceilings.hpp"

#include <unistd.h>

#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "system/anchor_figures.hpp"

namespace aisp {
namespace {

struct CeilingDescription {
  Ceiling ceiling;
  std::string_view name;  // equal to the enumerator's name
  std::string_view unit;
};

// In enumerator order, so a Ceiling indexes it directly (checked below).
constexpr std::array<CeilingDescription, 14> kCeilingDescriptions{{
    {Ceiling::none, "none", ""},
    {Ceiling::hbm_bandwidth, "hbm_bandwidth", "GB/s"},
    {Ceiling::l2_bandwidth, "l2_bandwidth", "GB/s"},
    {Ceiling::host_to_device_pinned, "host_to_device_pinned", "GB/s"},
    {Ceiling::host_to_device_pageable, "host_to_device_pageable", "GB/s"},
    {Ceiling::device_to_host_pinned, "device_to_host_pinned", "GB/s"},
    {Ceiling::host_memory_bandwidth, "host_memory_bandwidth", "GB/s"},
    {Ceiling::fp32_simt, "fp32_simt", "TFLOP/s"},
    {Ceiling::tf32_tensor, "tf32_tensor", "TFLOP/s"},
    {Ceiling::bf16_tensor, "bf16_tensor", "TFLOP/s"},
    {Ceiling::fp16_tensor, "fp16_tensor", "TFLOP/s"},
    {Ceiling::fp8_tensor, "fp8_tensor", "TFLOP/s"},
    {Ceiling::graph_node_launch, "graph_node_launch", "us"},
    {Ceiling::nvlink_peer, "nvlink_peer", "GB/s"},
}};

constexpr bool descriptions_in_enum_order() {
  for (std::size_t i = 0; i < kCeilingDescriptions.size(); ++i) {
    if (static_cast<std::size_t>(kCeilingDescriptions[i].ceiling) != i) {
      return false;
    }
  }
  return true;
}
static_assert(descriptions_in_enum_order(), "kCeilingDescriptions must follow enum Ceiling");
static_assert(static_cast<std::size_t>(Ceiling::nvlink_peer) + 1 ==
                  kCeilingDescriptions.size(),
              "a Ceiling was added: describe it in kCeilingDescriptions");

const CeilingDescription& describe(Ceiling ceiling) {
  const auto index = static_cast<std::size_t>(ceiling);
  return index < kCeilingDescriptions.size() ? kCeilingDescriptions[index]
                                             : kCeilingDescriptions[0];
}

// The built-in figure: ANCHORS.md's row that stands for the ceiling (src/system/anchor_figures.cpp
// holds the one table of them; docs/system-info.md reproduces it), the middle of a range.
std::optional<CeilingValue> find_measured(std::string_view hardware_key, Ceiling ceiling) {
  if (const std::optional<FigureAnchor> anchor = anchor_for_ceiling(ceiling, hardware_key)) {
    return CeilingValue{anchor->middle(), std::string(ceiling_unit(ceiling)), anchor->source};
  }
  return std::nullopt;
}

std::filesystem::path peaks_file(const std::filesystem::path& peaks_dir,
                                 const std::string& hardware_key) {
  return peaks_dir / (hardware_key + ".json");
}

// The parsed file, or nullopt when it does not exist.
std::optional<nlohmann::json> read_peaks_file(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    return std::nullopt;
  }
  std::ifstream stream(file);
  if (!stream) {
    throw std::runtime_error(
        fmt::format("cannot read measured ceilings from {}: check its permissions", file.string()));
  }
  std::stringstream text;
  text << stream.rdbuf();
  try {
    nlohmann::json document = nlohmann::json::parse(text.str());
    if (!document.is_object() ||
        (document.contains("ceilings") && !document["ceilings"].is_object())) {
      throw std::runtime_error(fmt::format(
          "{} is not a measured-ceilings file (expected an object with a \"ceilings\" object): "
          "fix it, or delete it and rerun `aisp bench peak`",
          file.string()));
    }
    return document;
  } catch (const nlohmann::json::exception& parse_error) {  // or out_of_range for 1e400
    throw std::runtime_error(
        fmt::format("{} is not valid JSON ({}): fix it, or delete it and rerun `aisp bench peak`",
                    file.string(), parse_error.what()));
  }
}

}  // namespace

std::optional<std::string> single_gpu_key(const std::string& hardware_key) {
  const auto marker = hardware_key.find("x_");
  if (marker == std::string::npos || marker == 0 || hardware_key.find('+') != std::string::npos) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < marker; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(hardware_key[i]))) {
      return std::nullopt;
    }
  }
  return hardware_key.substr(marker + 2);
}

std::string_view ceiling_name(Ceiling ceiling) { return describe(ceiling).name; }

std::string_view ceiling_unit(Ceiling ceiling) { return describe(ceiling).unit; }

std::optional<Ceiling> ceiling_from_name(std::string_view name) {
  for (const CeilingDescription& description : kCeilingDescriptions) {
    if (description.name == name) {
      return description.ceiling;
    }
  }
  return std::nullopt;
}

std::optional<CeilingValue> measured_ceiling(const std::string& hardware_key, Ceiling ceiling) {
  if (ceiling == Ceiling::none) {
    return std::nullopt;
  }
  if (auto value = find_measured(hardware_key, ceiling)) {
    return value;
  }
  if (const auto single = single_gpu_key(hardware_key)) {
    return find_measured(*single, ceiling);
  }
  return std::nullopt;
}

std::optional<CeilingValue> stored_ceiling(const std::filesystem::path& peaks_dir,
                                           const std::string& hardware_key, Ceiling ceiling) {
  if (ceiling == Ceiling::none) {
    return std::nullopt;
  }
  const std::filesystem::path file = peaks_file(peaks_dir, hardware_key);
  const std::optional<nlohmann::json> document = read_peaks_file(file);
  if (!document || !document->contains("ceilings")) {
    return std::nullopt;
  }
  const std::string name(ceiling_name(ceiling));
  const nlohmann::json& ceilings = (*document)["ceilings"];
  if (!ceilings.contains(name)) {
    return std::nullopt;
  }
  const nlohmann::json& entry = ceilings[name];
  const auto malformed = [&](std::string_view what) {
    return std::runtime_error(
        fmt::format("{}: ceilings.{} {}: fix the entry, or delete it and rerun `aisp bench peak`",
                    file.string(), name, what));
  };
  if (!entry.is_object() || !entry.contains("value") || !entry["value"].is_number()) {
    throw malformed("has no numeric \"value\"");
  }
  CeilingValue value;
  value.value = entry["value"].get<double>();
  if (!std::isfinite(value.value) || value.value <= 0) {
    throw malformed(fmt::format("has value {}, which is not positive", value.value));
  }
  value.unit = std::string(ceiling_unit(ceiling));
  if (entry.contains("unit")) {
    if (!entry["unit"].is_string() || entry["unit"].get<std::string>() != value.unit) {
      throw malformed(
          fmt::format("has unit {}, expected \"{}\"", entry["unit"].dump(), value.unit));
    }
  }
  value.source = entry.contains("source") && entry["source"].is_string()
                     ? entry["source"].get<std::string>()
                     : "";
  value.source =
      fmt::format("{}{}{}", file.string(), value.source.empty() ? "" : ": ", value.source);
  return value;
}

namespace {

// Reads <peaks_dir>/<hardware_key>.json (or starts one), lets `change` edit it, and replaces the
// file atomically.
template <class Change>
void rewrite_peaks_file(const std::filesystem::path& peaks_dir, const std::string& hardware_key,
                        Change change) {
  const std::filesystem::path file = peaks_file(peaks_dir, hardware_key);
  nlohmann::json document =
      read_peaks_file(file).value_or(nlohmann::json{{"hardware_key", hardware_key}});
  document["hardware_key"] = hardware_key;
  change(document);
  std::error_code error;
  std::filesystem::create_directories(peaks_dir, error);
  const std::filesystem::path temporary =
      file.string() + fmt::format(".tmp.{}", static_cast<long>(getpid()));
  {
    std::ofstream stream(temporary, std::ios::trunc);
    stream << document.dump(2) << '\n';
    if (!stream.flush()) {
      throw std::runtime_error(
          fmt::format("cannot write measured ceilings to {}: check that the directory is writable",
                      temporary.string()));
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    const std::string reason = error.message();
    std::filesystem::remove(temporary, error);
    throw std::runtime_error(fmt::format("cannot replace {}: {}", file.string(), reason));
  }
}

}  // namespace

void store_ceiling(const std::filesystem::path& peaks_dir, const std::string& hardware_key,
                   Ceiling ceiling, const CeilingValue& value) {
  if (ceiling == Ceiling::none) {
    throw std::runtime_error("store_ceiling: Ceiling::none has no value to store");
  }
  rewrite_peaks_file(peaks_dir, hardware_key, [&](nlohmann::json& document) {
    document["ceilings"][std::string(ceiling_name(ceiling))] = {
        {"value", value.value},
        {"unit", value.unit.empty() ? std::string(ceiling_unit(ceiling)) : value.unit},
        {"source", value.source},
    };
  });
}

void store_figure(const std::filesystem::path& peaks_dir, const std::string& hardware_key,
                  const std::string& name, const CeilingValue& value) {
  rewrite_peaks_file(peaks_dir, hardware_key, [&](nlohmann::json& document) {
    document["figures"][name] = {
        {"value", value.value},
        {"unit", value.unit},
        {"source", value.source},
    };
  });
}

bool ceiling_is_host_scoped(Ceiling ceiling) { return ceiling == Ceiling::host_memory_bandwidth; }

std::string host_hardware_key() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') {
    return "host_unknown";
  }
  std::string key = "host_";
  for (const char* c = name; *c != '\0'; ++c) {
    const auto ch = static_cast<unsigned char>(*c);
    key += std::isalnum(ch) ? static_cast<char>(std::tolower(ch)) : '_';
  }
  return key;
}

std::optional<CeilingValue> resolve_ceiling(const std::filesystem::path& peaks_dir,
                                            const std::string& hardware_key, Ceiling ceiling) {
  if (ceiling_is_host_scoped(ceiling)) {
    return stored_ceiling(peaks_dir, host_hardware_key(), ceiling);
  }
  if (auto stored = stored_ceiling(peaks_dir, hardware_key, ceiling)) {
    return stored;
  }
  if (const auto single = single_gpu_key(hardware_key)) {
    if (auto stored = stored_ceiling(peaks_dir, *single, ceiling)) {
      return stored;
    }
  }
  return measured_ceiling(hardware_key, ceiling);
}

}  // namespace aisp
