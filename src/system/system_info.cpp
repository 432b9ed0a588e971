// Reads the machine once per run. Every probe tolerates absence (no GPU, no driver, no NVML, no
// git, no /sys) by leaving its field empty and saying why, because the manifest must be written
// on any machine the suite runs on.
#include "system/system_info.hpp"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join lives here from fmt 11 on
#include <nlohmann/json.hpp>

#include "system/device_snapshot.hpp"
#include "system/nvml_probe.hpp"
#include "system/shell_words.hpp"

namespace aisp {
namespace {

std::string trim(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_space(text.back())) {
    text.remove_suffix(1);
  }
  return std::string(text);
}

std::optional<std::string> read_first_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  if (!file || !std::getline(file, line)) {
    return std::nullopt;
  }
  return trim(line);
}

std::string format_uuid(const cudaUUID_t& uuid) {
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      text += '-';
    }
    text += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return text;
}

void collect_gpus(SystemInfo& info, const NvmlProbe& nvml) {
  int count = 0;
  const cudaError_t count_status = cudaGetDeviceCount(&count);
  if (count_status != cudaSuccess) {
    cudaGetLastError();  // clear it, so later CUDA calls in this process do not report it
    info.gpu_probe_error = describe_gpu_unavailable("cudaGetDeviceCount", count_status);
    return;
  }
  if (count == 0) {
    info.gpu_probe_error = describe_gpu_unavailable("cudaGetDeviceCount", cudaErrorNoDevice);
    return;
  }
  for (int device = 0; device < count; ++device) {
    cudaDeviceProp prop{};
    const cudaError_t status = cudaGetDeviceProperties(&prop, device);
    if (status != cudaSuccess) {
      info.gpu_probe_error += (info.gpu_probe_error.empty() ? "" : "; ") +
                              fmt::format("device {}: ", device) +
                              describe_gpu_unavailable("cudaGetDeviceProperties", status);
      cudaGetLastError();
      continue;
    }
    GpuInfo gpu;
    gpu.index = device;
    gpu.name = prop.name;
    gpu.cc_major = prop.major;
    gpu.cc_minor = prop.minor;
    gpu.sm_count = prop.multiProcessorCount;
    gpu.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    gpu.persisting_l2_max_bytes = static_cast<std::size_t>(prop.persistingL2CacheMaxSize);
    gpu.memory_bytes = prop.totalGlobalMem;
    gpu.memory_bus_width_bits = prop.memoryBusWidth;
    gpu.shared_per_block_optin = prop.sharedMemPerBlockOptin;
    gpu.uuid = format_uuid(prop.uuid);
    char bus_id[64] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == cudaSuccess) {
      gpu.pci_bus_id = bus_id;
    } else {
      cudaGetLastError();
    }
    gpu.max_sm_clock_mhz = nvml.max_sm_clock_mhz(gpu.pci_bus_id);
    int peak_clock_khz = 0;
    if (!gpu.max_sm_clock_mhz &&
        cudaDeviceGetAttribute(&peak_clock_khz, cudaDevAttrClockRate, device) == cudaSuccess &&
        peak_clock_khz > 0) {
      gpu.max_sm_clock_mhz = static_cast<unsigned>(peak_clock_khz / 1000);
    }
    gpu.power_limit_w = nvml.power_limit_w(gpu.pci_bus_id);
    gpu.state = nvml.read_state(gpu.pci_bus_id);
    info.gpus.push_back(std::move(gpu));
  }
}

// "580.95.05" from "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep ...".
std::string driver_version_from_proc() {
  const auto line = read_first_line("/proc/driver/nvidia/version");
  if (!line) {
    return {};
  }
  std::istringstream words(*line);
  std::string word;
  while (words >> word) {
    const bool has_dot = word.find('.') != std::string::npos;
    const bool all_version_chars = word.find_first_not_of("0123456789.") == std::string::npos;
    if (has_dot && all_version_chars && std::isdigit(static_cast<unsigned char>(word[0]))) {
      return word;
    }
  }
  return {};
}

std::string read_cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, implementer, part;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      continue;
    }
    const std::string key = trim(std::string_view(line).substr(0, colon));
    const std::string value = trim(std::string_view(line).substr(colon + 1));
    if (key == "model name" || key == "Hardware") {
      return value;
    }
    if (key == "CPU implementer" && implementer.empty()) {
      implementer = value;
    } else if (key == "CPU part" && part.empty()) {
      part = value;
    }
  }
  if (!implementer.empty()) {  // Arm (Grace) lists no model name, only the part numbers
    return fmt::format("Arm CPU, implementer {} part {}", implementer, part);
  }
  return {};
}

std::string read_os_pretty_name() {
  std::ifstream os_release("/etc/os-release");
  std::string line;
  while (std::getline(os_release, line)) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string value = trim(std::string_view(line).substr(12));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return value;
    }
  }
  return {};
}

struct CommandOutput {
  int exit_code = -1;  // -1: the status could not be read
  std::string output;  // stdout and stderr together
};

std::optional<CommandOutput> run_command(const std::string& command) {
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return std::nullopt;
  }
  CommandOutput result;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    result.output.append(buffer, read);
  }
  const int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

// git's first line says what went wrong; the rest is advice that does not apply here.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

bool is_commit_hash(const std::string& text) {
  return (text.size() == 40 || text.size() == 64) &&
         text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

void collect_git_state(SystemInfo& info) {
  // A copy of the tree without .git (the GPU machine gets one) names its commit through the
  // environment: AISP_GIT_COMMIT=<sha>, AISP_GIT_DIRTY=0|1.
  if (const char* commit = std::getenv("AISP_GIT_COMMIT"); commit != nullptr && *commit != 0) {
    info.git_commit = commit;
    const char* dirty = std::getenv("AISP_GIT_DIRTY");
    info.git_dirty = dirty != nullptr && std::string(dirty) != "0";
    return;
  }
  const std::string& source_dir = info.build.source_dir;
  if (source_dir.empty()) {
    info.git_status_error = "this binary records no source directory: git commit not recorded";
    return;
  }
  std::error_code error;
  if (!std::filesystem::is_directory(source_dir, error)) {
    info.git_status_error = fmt::format(
        "source directory {} (from the build) does not exist here: git commit not recorded. "
        "Run the binary on the machine it was built on to record it",
        source_dir);
    return;
  }
  // GIT_OPTIONAL_LOCKS=0: `git status` must not take index.lock while someone works in the tree.
  const std::string git = "GIT_OPTIONAL_LOCKS=0 git -C " + shell_quote(source_dir);
  const auto head = run_command(git + " rev-parse HEAD 2>&1");
  if (!head) {
    info.git_status_error = "could not start a shell to run git: git commit not recorded";
    return;
  }
  const std::string commit = trim(head->output);
  if (head->exit_code == 127) {
    info.git_status_error = "git is not on PATH: git commit not recorded";
    return;
  }
  if (head->exit_code > 0 || !is_commit_hash(commit)) {
    info.git_status_error = fmt::format("git rev-parse HEAD in {} failed (exit {}): {}", source_dir,
                                        head->exit_code, first_line(commit));
    return;
  }
  info.git_commit = commit;
  const auto status = run_command(git + " status --porcelain 2>&1");
  if (!status || status->exit_code != 0) {
    info.git_status_error = fmt::format(
        "git status --porcelain in {} failed: {}; dirty flag unknown", source_dir,
        status ? first_line(trim(status->output)) : std::string("could not start a shell"));
    return;
  }
  info.git_dirty = !trim(status->output).empty();
}

void collect_host(SystemInfo& info) {
  info.cpu_model = read_cpu_model();
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  info.cpu_logical_cores = cores > 0 ? static_cast<int>(cores) : 0;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    info.host_memory_bytes = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size);
  }
  info.cpu_governor =
      read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").value_or("");
  info.os = read_os_pretty_name();
  utsname names{};
  if (uname(&names) == 0) {
    info.kernel = fmt::format("{} {} {}", names.sysname, names.release, names.machine);
    info.hostname = names.nodename;
  }
}

nlohmann::json optional_json(const std::optional<unsigned>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string version_text(int cuda_version) {
  if (cuda_version <= 0) {
    return "none";
  }
  return fmt::format("{}.{}", cuda_version / 1000, cuda_version % 1000 / 10);
}

std::string bytes_text(std::size_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string gpu_state_text(const GpuState& state) {
  std::vector<std::string> parts;
  if (state.sm_clock_mhz) {
    parts.push_back(fmt::format("SM {} MHz", *state.sm_clock_mhz));
  }
  if (state.memory_clock_mhz) {
    parts.push_back(fmt::format("memory {} MHz", *state.memory_clock_mhz));
  }
  if (state.power_w) {
    parts.push_back(fmt::format("{:.0f} W", *state.power_w));
  }
  if (state.temperature_c) {
    parts.push_back(fmt::format("{} C", *state.temperature_c));
  }
  if (parts.empty()) {
    return "not available";
  }
  parts.push_back("clock events: " +
                  (state.throttle_reasons.empty()
                       ? std::string("none")
                       : fmt::format("{}", fmt::join(state.throttle_reasons, ","))));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string or_unknown(const std::string& text) { return text.empty() ? "unknown" : text; }

// Known models, checked in order. A rule matches when the name contains its word whole, so
// "GB200" never matches "B200" and "GH200" never "H200"; the form factor then picks the key. An
// H100 whose name states no form factor ("NVIDIA H100 80GB HBM3") is the SXM part.
struct GpuModelRule {
  std::string_view word;  // upper case
  std::string_view key;   // when the name states no form factor the rule knows
  std::string_view pcie_key, nvl_key, sxm_key;
};
constexpr GpuModelRule kGpuModelRules[] = {
    {"GB200", "gb200", "", "", ""},
    {"GB300", "gb300", "", "", ""},
    {"GH200", "gh200", "", "", ""},
    {"B200", "b200", "", "", ""},
    {"B300", "b300", "", "", ""},
    {"H200", "h200", "", "h200_nvl", ""},
    {"H100", "h100_sxm", "h100_pcie", "h100_nvl", "h100_sxm"},
    {"A100", "a100", "a100_pcie", "", "a100_sxm"},
    {"L40S", "l40s", "", "", ""},
};

}  // namespace

SystemInfo collect_system_info() {
  SystemInfo info;
  try {
    const NvmlProbe nvml;
    info.nvml_status = nvml.available() ? "available" : nvml.unavailable_reason();
    if (cudaDriverGetVersion(&info.cuda_driver_api_version) != cudaSuccess) {
      info.cuda_driver_api_version = 0;
    }
    if (cudaRuntimeGetVersion(&info.cuda_runtime_version) != cudaSuccess) {
      info.cuda_runtime_version = 0;
    }
    cudaGetLastError();
    collect_gpus(info, nvml);
    info.nvidia_driver_version = nvml.driver_version().value_or(driver_version_from_proc());
    collect_host(info);
    info.build = build_info();
    collect_git_state(info);
  } catch (const std::exception& error) {
    // Only allocation failures can get here; record them rather than lose the manifest.
    info.gpu_probe_error += std::string(info.gpu_probe_error.empty() ? "" : "; ") +
                            "system probe stopped early: " + error.what();
  }
  info.runtime_libraries = probe_runtime_libraries();
  return info;
}

nlohmann::json gpu_state_to_json(const GpuState& state) {
  return {
      {"sm_clock_mhz", optional_json(state.sm_clock_mhz)},
      {"memory_clock_mhz", optional_json(state.memory_clock_mhz)},
      {"power_w", optional_json(state.power_w)},
      {"temperature_c", optional_json(state.temperature_c)},
      {"throttle_reasons", state.throttle_reasons},
  };
}

namespace {
nlohmann::json runtime_libraries_json(const std::vector<RuntimeLibrary>& libraries) {
  nlohmann::json out = nlohmann::json::array();
  for (const RuntimeLibrary& library : libraries)
    out.push_back({{"name", library.name},
                   {"found", library.found},
                   {"version", library.version},
                   {"loaded_from", library.loaded_from},
                   {"reason", library.reason}});
  return out;
}
}  // namespace

nlohmann::json system_info_to_json(const SystemInfo& info) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuInfo& gpu : info.gpus) {
    gpus.push_back({
        {"index", gpu.index},
        {"name", gpu.name},
        {"compute_capability", fmt::format("{}.{}", gpu.cc_major, gpu.cc_minor)},
        {"cc_major", gpu.cc_major},
        {"cc_minor", gpu.cc_minor},
        {"sm_count", gpu.sm_count},
        {"l2_bytes", gpu.l2_bytes},
        {"persisting_l2_max_bytes", gpu.persisting_l2_max_bytes},
        {"memory_bytes", gpu.memory_bytes},
        {"memory_bus_width_bits", gpu.memory_bus_width_bits},
        {"shared_per_block_optin", gpu.shared_per_block_optin},
        {"pci_bus_id", gpu.pci_bus_id},
        {"uuid", gpu.uuid},
        {"max_sm_clock_mhz", optional_json(gpu.max_sm_clock_mhz)},
        {"power_limit_w", optional_json(gpu.power_limit_w)},
        {"state", gpu_state_to_json(gpu.state)},
    });
  }
  const BuildInfo& build = info.build;
  return {
      {"hardware_key", hardware_key(info)},
      {"gpus", std::move(gpus)},
      {"gpu_probe_error", info.gpu_probe_error},
      {"cuda_driver_api_version", info.cuda_driver_api_version},
      {"cuda_runtime_version", info.cuda_runtime_version},
      {"nvidia_driver_version", info.nvidia_driver_version},
      {"nvml_status", info.nvml_status},
      {"runtime_libraries", runtime_libraries_json(info.runtime_libraries)},
      {"cpu_model", info.cpu_model},
      {"cpu_logical_cores", info.cpu_logical_cores},
      {"host_memory_bytes", info.host_memory_bytes},
      {"cpu_governor", info.cpu_governor},
      {"os", info.os},
      {"kernel", info.kernel},
      {"hostname", info.hostname},
      {"build",
       {
           {"version", build.version},
           {"cxx_compiler", build.cxx_compiler},
           {"cuda_compiler", build.cuda_compiler},
           {"cuda_toolkit", build.cuda_toolkit},
           {"cuda_architectures", build.cuda_architectures},
           {"build_type", build.build_type},
           {"source_dir", build.source_dir},
       }},
      {"git_commit", info.git_commit},
      {"git_dirty", info.git_dirty},
      {"git_status_error", info.git_status_error},
  };
}

std::string format_system_info(const SystemInfo& info) {
  std::string text;
  const auto line = [&text](std::string_view label, const std::string& value) {
    text += fmt::format("{:<16}{}\n", label, value);
  };
  line("Hardware key", hardware_key(info));
  if (info.gpus.empty()) {
    line("GPUs", "none: " + info.gpu_probe_error);
  } else {
    line("GPUs",
         fmt::format("{} visible{}", info.gpus.size(),
                     info.gpu_probe_error.empty() ? "" : " (" + info.gpu_probe_error + ")"));
  }
  for (const GpuInfo& gpu : info.gpus) {
    text += fmt::format("  [{}] {}, sm_{}{}, {} SMs, {} memory ({}-bit bus), L2 {} (persisting "
                        "max {}), shared/block opt-in {}\n",
                        gpu.index, gpu.name, gpu.cc_major, gpu.cc_minor, gpu.sm_count,
                        bytes_text(gpu.memory_bytes), gpu.memory_bus_width_bits,
                        bytes_text(gpu.l2_bytes), bytes_text(gpu.persisting_l2_max_bytes),
                        bytes_text(gpu.shared_per_block_optin));
    text +=
        fmt::format("      PCI {}, {}, max SM clock {}, power limit {}\n",
                    or_unknown(gpu.pci_bus_id), or_unknown(gpu.uuid),
                    gpu.max_sm_clock_mhz ? fmt::format("{} MHz", *gpu.max_sm_clock_mhz) : "unknown",
                    gpu.power_limit_w ? fmt::format("{:.0f} W", *gpu.power_limit_w) : "unknown");
    text += fmt::format("      now: {}\n", gpu_state_text(gpu.state));
  }
  line("NVIDIA driver",
       info.cuda_driver_api_version > 0
           ? fmt::format("{} (supports CUDA {})", or_unknown(info.nvidia_driver_version),
                         version_text(info.cuda_driver_api_version))
           : "none found (no libcuda.so.1)");
  line("CUDA runtime", version_text(info.cuda_runtime_version));
  line("NVML", info.nvml_status);
  for (const RuntimeLibrary& library : info.runtime_libraries)
    line(library.name,
         library.found
             ? fmt::format("{} ({}); used by {}",
                           library.version.empty() ? "found" : library.version,
                           library.loaded_from, library.used_by)
             : fmt::format("{}; used by {}, which skip without it", library.reason,
                           library.used_by));
  line("CPU", fmt::format("{}, {} logical cores, governor {}", or_unknown(info.cpu_model),
                          info.cpu_logical_cores,
                          info.cpu_governor.empty() ? "not exposed" : info.cpu_governor));
  line("Host memory", bytes_text(info.host_memory_bytes));
  line("OS", fmt::format("{}, {}", or_unknown(info.os), or_unknown(info.kernel)));
  line("Hostname", or_unknown(info.hostname));
  const BuildInfo& build = info.build;
  line("Build", fmt::format("aisp {} ({}), {}, CUDA compiler {}, toolkit {}, architectures {}",
                            build.version, build.build_type, build.cxx_compiler,
                            build.cuda_compiler, build.cuda_toolkit, build.cuda_architectures));
  if (info.git_commit.empty()) {
    line("Git", "unknown: " + info.git_status_error);
  } else {
    line("Git",
         fmt::format("{}{} in {}{}", info.git_commit, info.git_dirty ? " (dirty)" : "",
                     build.source_dir,
                     info.git_status_error.empty() ? "" : " (" + info.git_status_error + ")"));
  }
  return text;
}

std::string gpu_model_key(std::string_view gpu_name) {
  // Upper-cased words of the name, split at anything not a letter or digit:
  // "NVIDIA A100-SXM4-80GB" -> NVIDIA, A100, SXM4, 80GB.
  std::vector<std::string> words;
  std::string word;
  for (const char c : std::string(gpu_name) + ' ') {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  const auto has_word = [&words](std::string_view prefix, bool whole) {
    for (const std::string& w : words) {
      if (whole ? w == prefix : w.rfind(prefix, 0) == 0) {
        return true;
      }
    }
    return false;
  };
  const bool pcie = has_word("PCIE", true);
  const bool nvl = has_word("NVL", true);
  const bool sxm = has_word("SXM", false);  // SXM, SXM4, SXM5, ...
  for (const GpuModelRule& rule : kGpuModelRules) {
    if (!has_word(rule.word, true)) {
      continue;
    }
    if (pcie && !rule.pcie_key.empty()) {
      return std::string(rule.pcie_key);
    }
    if (nvl && !rule.nvl_key.empty()) {
      return std::string(rule.nvl_key);
    }
    if (sxm && !rule.sxm_key.empty()) {
      return std::string(rule.sxm_key);
    }
    return std::string(rule.key);
  }

  std::string generic;
  std::string_view name = gpu_name;
  if (name.rfind("NVIDIA ", 0) == 0) {
    name.remove_prefix(7);
  }
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      generic += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!generic.empty() && generic.back() != '_') {
      generic += '_';
    }
  }
  while (!generic.empty() && generic.back() == '_') {
    generic.pop_back();
  }
  return generic.empty() ? "unknown_gpu" : generic;
}

std::string hardware_key(const SystemInfo& info) {
  if (info.gpus.empty()) {
    return "cpu_only";
  }
  std::vector<std::pair<std::string, int>> models;  // model key and count, in device order
  for (const GpuInfo& gpu : info.gpus) {
    const std::string model = gpu_model_key(gpu.name);
    auto found = models.begin();
    while (found != models.end() && found->first != model) {
      ++found;
    }
    if (found == models.end()) {
      models.emplace_back(model, 1);
    } else {
      ++found->second;
    }
  }
  std::string key;
  for (const auto& [model, count] : models) {
    key += key.empty() ? "" : "+";
    key += count > 1 ? fmt::format("{}x_{}", count, model) : model;
  }
  return key;
}

}  // namespace aisp
