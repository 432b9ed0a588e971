// What a run was measured on: GPUs (CUDA runtime + NVML), driver and CUDA versions, host CPU,
// memory and OS, the build, and the git commit. Recorded in every run's manifest and printed by
// `aisp system info`. docs/system-info.md says where each field comes from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "system/runtime_libraries.hpp"

#include <nlohmann/json_fwd.hpp>

#include "aisp/result.hpp"
#include "system/build_info.hpp"

namespace aisp {

struct GpuInfo {
  int index = 0;  // CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t persisting_l2_max_bytes = 0;
  std::size_t memory_bytes = 0;
  int memory_bus_width_bits = 0;
  std::size_t shared_per_block_optin = 0;
  std::string pci_bus_id;                    // "0000:19:00.0"
  std::string uuid;                          // "GPU-5f3c...", as nvidia-smi prints it
  std::optional<unsigned> max_sm_clock_mhz;  // NVML; the CUDA peak clock when NVML is absent
  std::optional<double> power_limit_w;       // NVML power management limit
  GpuState state;                            // NVML, when collected
};

struct SystemInfo {
  std::vector<GpuInfo> gpus;
  // Empty when GPUs were found; otherwise the failing call and what to do, e.g.
  // "cudaGetDeviceCount: no CUDA-capable device is detected (cudaErrorNoDevice)".
  std::string gpu_probe_error;
  int cuda_driver_api_version = 0;    // cudaDriverGetVersion: 13000 means 13.0; 0 without a driver
  int cuda_runtime_version = 0;       // cudaRuntimeGetVersion: the runtime linked into this binary
  std::string nvidia_driver_version;  // "580.95.05"; empty when unknown
  std::string nvml_status;            // "available" or why NVML could not be used
  // cuDNN, NCCL, NVRTC, CUPTI: opened at run time by the pairs and checks that need them.
  std::vector<RuntimeLibrary> runtime_libraries;
  std::string cpu_model;
  int cpu_logical_cores = 0;
  std::size_t host_memory_bytes = 0;
  std::string cpu_governor;  // cpu0's cpufreq scaling governor; empty when not exposed
  std::string os;            // PRETTY_NAME from /etc/os-release
  std::string kernel;        // uname: "Linux 6.8.0-45-generic x86_64"
  std::string hostname;
  BuildInfo build;
  std::string git_commit;        // of build.source_dir; empty when unknown
  bool git_dirty = false;        // uncommitted or untracked changes in build.source_dir
  std::string git_status_error;  // why git_commit is empty; empty when it was read
};

// Never throws; fields that cannot be read stay empty or zero and the *_error/*_status fields
// say why. Initializes the CUDA driver: call it in a process that may use CUDA afterwards (a
// process forked after CUDA initialization cannot use CUDA itself).
SystemInfo collect_system_info();

nlohmann::json gpu_state_to_json(const GpuState& state);
nlohmann::json system_info_to_json(const SystemInfo& info);
// Multi-line, human-readable: what `aisp system info` prints.
std::string format_system_info(const SystemInfo& info);

// The key a GPU model's expectations and ceilings are stored under: "h200", "h100_sxm",
// "h100_pcie", "b200", "a100_sxm", "l40s", "gb200", "b300", ...; otherwise the name without
// "NVIDIA ", lowercase, with runs of other characters as "_" ("geforce_rtx_4090").
std::string gpu_model_key(std::string_view gpu_name);
// The machine's key: the model key, prefixed "2x_", "8x_", ... when several identical GPUs are
// visible; different models joined by "+" in device order ("h100_sxm+2x_l40s"); "cpu_only" when
// no GPU is visible.
std::string hardware_key(const SystemInfo& info);

}  // namespace aisp
