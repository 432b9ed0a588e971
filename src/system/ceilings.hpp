// Measured hardware ceilings, the denominators of every roofline fraction. Two sources: values
// `aisp bench peak` measured on this kind of machine (<peaks_dir>/<hardware_key>.json), and a
// built-in table of figures measured on our test machines (docs/system-info.md). Datasheet peaks
// are never used.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aisp/benchmark.hpp"

namespace aisp {

struct CeilingValue {
  double value = 0;
  std::string unit;    // ceiling_unit(ceiling): "GB/s", "TFLOP/s" or "us"
  std::string source;  // where the figure comes from: file, machine, toolkit, date, method
};

// "GB/s" for bandwidths, "TFLOP/s" for compute, "us" for graph_node_launch, "" for none.
std::string_view ceiling_unit(Ceiling ceiling);
// The Ceiling named by ceiling_name(), or nullopt for an unknown name.
std::optional<Ceiling> ceiling_from_name(std::string_view name);

// "2x_h200" -> "h200": the single-GPU key of a machine of several GPUs of one model; nullopt for
// a key without an "<N>x_" prefix or with several models ("h200+l40s").
std::optional<std::string> single_gpu_key(const std::string& hardware_key);

// The built-in measured figure. A multi-GPU key ("2x_h200") falls back to its single-GPU key
// ("h200"), because ceilings are per device. nullopt when nothing was measured for it.
std::optional<CeilingValue> measured_ceiling(const std::string& hardware_key, Ceiling ceiling);

// The figure stored in <peaks_dir>/<hardware_key>.json, whose form is
//   {"hardware_key": "h200",
//    "ceilings": {"hbm_bandwidth": {"value": 4275, "unit": "GB/s", "source": "..."}, ...}}
// nullopt when the file or the entry is absent. Throws std::runtime_error naming the file when it
// is not valid JSON or the entry is malformed (no numeric positive value, a unit other than
// ceiling_unit(ceiling)).
std::optional<CeilingValue> stored_ceiling(const std::filesystem::path& peaks_dir,
                                           const std::string& hardware_key, Ceiling ceiling);

// Writes (or replaces) one entry of <peaks_dir>/<hardware_key>.json, keeping the others; the
// file is replaced atomically. Throws std::runtime_error when it cannot be read or written.
void store_ceiling(const std::filesystem::path& peaks_dir, const std::string& hardware_key,
                   Ceiling ceiling, const CeilingValue& value);

// Writes (or replaces) one entry of the same file's "figures": a measured figure that no pair is
// judged against, kept per machine beside the ceilings for reference (NCCL's bus bandwidths,
// docs/peaks.md). Never read as a ceiling. Throws like store_ceiling.
void store_figure(const std::filesystem::path& peaks_dir, const std::string& hardware_key,
                  const std::string& name, const CeilingValue& value);

// Ceilings of the host rather than of a GPU model: host_memory_bandwidth. Its figure depends on
// this host's memory (channels, DIMMs, NUMA) and is never built in: `aisp bench peak` measures
// it on the host (GPU or not) and stores it under host_hardware_key(), where resolve_ceiling
// looks for it whatever key it is asked with. A host without a stored figure has no such
// ceiling, so its CPU pairs get no roofline fraction and no within_roofline check (the check
// says so).
bool ceiling_is_host_scoped(Ceiling ceiling);
// "host_<hostname>" in lowercase letters, digits and '_': the key of this host's figures.
std::string host_hardware_key();

// Stored first (the exact key, then the single-GPU key), then built-in; nullopt when neither
// has it. A host-scoped ceiling is read from host_hardware_key()'s file only. Throws like
// stored_ceiling.
std::optional<CeilingValue> resolve_ceiling(const std::filesystem::path& peaks_dir,
                                            const std::string& hardware_key, Ceiling ceiling);

}  // namespace aisp
