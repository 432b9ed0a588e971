// NVML through dlopen/dlsym. The C types are declared here rather than taken from nvml.h, so the
// build needs no NVML headers; the entry points and constants are NVML's documented ABI.
#include "system/nvml_probe.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <utility>

namespace aisp {
namespace {

using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;  // nvmlDevice_t

constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;                    // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;                   // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;             // NVML_TEMPERATURE_GPU
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

// Documented bits of nvmlClocksEventReasons (formerly nvmlClocksThrottleReasons).
struct ClockEventReasonBit {
  unsigned long long bit;
  const char* name;
};
constexpr std::array<ClockEventReasonBit, 9> kClockEventReasonBits{{
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
}};

template <typename Function>
Function resolve(void* library, const char* symbol) {
  // POSIX guarantees a dlsym result converts to a function pointer.
  return reinterpret_cast<Function>(dlsym(library, symbol));
}

}  // namespace

std::vector<std::string> clock_event_reason_names(unsigned long long mask) {
  std::vector<std::string> names;
  unsigned long long known = 0;
  for (const ClockEventReasonBit& reason : kClockEventReasonBits) {
    known |= reason.bit;
    if ((mask & reason.bit) != 0) {
      names.emplace_back(reason.name);
    }
  }
  for (int bit = 0; bit < 64; ++bit) {
    const unsigned long long value = 1ULL << bit;
    if ((mask & value) != 0 && (known & value) == 0) {
      char name[32];
      std::snprintf(name, sizeof name, "unknown_0x%llx", value);
      names.emplace_back(name);
    }
  }
  return names;
}

struct NvmlProbe::Api {
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  // The rest may be missing from an old or stripped driver; each use checks for nullptr.
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*max_clock_info)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power_usage_mw)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*power_limit_mw)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*clock_event_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
};

NvmlProbe::NvmlProbe()
    : NvmlProbe(std::vector<std::string>{"libnvidia-ml.so.1", "libnvidia-ml.so"}) {}

NvmlProbe::NvmlProbe(const std::vector<std::string>& library_names) {
  std::string load_errors;
  for (const std::string& name : library_names) {
    library_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ != nullptr) {
      break;
    }
    const char* error = dlerror();
    load_errors += (load_errors.empty() ? "" : "; ") + std::string(error ? error : name);
  }
  if (library_ == nullptr) {
    unavailable_reason_ = "NVML library not found (" + load_errors +
                          "): clocks, power and throttle reasons are not recorded. Install the "
                          "NVIDIA driver, or add the directory of libnvidia-ml.so.1 to "
                          "LD_LIBRARY_PATH";
    return;
  }

  using InitFunction = NvmlReturn (*)();
  const auto init = resolve<InitFunction>(library_, "nvmlInit_v2");
  auto api = std::make_unique<Api>();
  api->shutdown = resolve<decltype(api->shutdown)>(library_, "nvmlShutdown");
  api->handle_by_pci_bus_id =
      resolve<decltype(api->handle_by_pci_bus_id)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  if (init == nullptr || api->shutdown == nullptr || api->handle_by_pci_bus_id == nullptr) {
    unavailable_reason_ = "the loaded NVML library lacks nvmlInit_v2, nvmlShutdown or "
                          "nvmlDeviceGetHandleByPciBusId_v2: update the NVIDIA driver";
    return;
  }
  api->error_string = resolve<decltype(api->error_string)>(library_, "nvmlErrorString");
  api->clock_info = resolve<decltype(api->clock_info)>(library_, "nvmlDeviceGetClockInfo");
  api->max_clock_info =
      resolve<decltype(api->max_clock_info)>(library_, "nvmlDeviceGetMaxClockInfo");
  api->power_usage_mw = resolve<decltype(api->power_usage_mw)>(library_, "nvmlDeviceGetPowerUsage");
  api->power_limit_mw =
      resolve<decltype(api->power_limit_mw)>(library_, "nvmlDeviceGetPowerManagementLimit");
  api->temperature = resolve<decltype(api->temperature)>(library_, "nvmlDeviceGetTemperature");
  api->clock_event_reasons = resolve<decltype(api->clock_event_reasons)>(
      library_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api->clock_event_reasons == nullptr) {  // drivers before r535 only have the old name
    api->clock_event_reasons = resolve<decltype(api->clock_event_reasons)>(
        library_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  api->driver_version =
      resolve<decltype(api->driver_version)>(library_, "nvmlSystemGetDriverVersion");

  const NvmlReturn status = init();
  if (status != kNvmlSuccess) {
    const char* message = api->error_string ? api->error_string(status) : nullptr;
    unavailable_reason_ = "nvmlInit_v2 failed: " + std::string(message ? message : "error") +
                          " (NVML code " + std::to_string(status) +
                          "): clocks, power and throttle reasons are not recorded. Check that "
                          "nvidia-smi works on this machine";
    return;
  }
  api_ = std::move(api);
}

NvmlProbe::~NvmlProbe() {
  if (api_) {
    api_->shutdown();
  }
  if (library_ != nullptr) {
    dlclose(library_);
  }
}

void* NvmlProbe::device_handle(const std::string& pci_bus_id) const {
  if (!api_ || pci_bus_id.empty()) {
    return nullptr;
  }
  NvmlDevice device = nullptr;
  if (api_->handle_by_pci_bus_id(pci_bus_id.c_str(), &device) != kNvmlSuccess) {
    return nullptr;
  }
  return device;
}

GpuState NvmlProbe::read_state(const std::string& pci_bus_id) const {
  GpuState state;
  const auto device = static_cast<NvmlDevice>(device_handle(pci_bus_id));
  if (device == nullptr) {
    return state;
  }
  unsigned value = 0;
  if (api_->clock_info && api_->clock_info(device, kNvmlClockSm, &value) == kNvmlSuccess) {
    state.sm_clock_mhz = value;
  }
  if (api_->clock_info && api_->clock_info(device, kNvmlClockMem, &value) == kNvmlSuccess) {
    state.memory_clock_mhz = value;
  }
  if (api_->power_usage_mw && api_->power_usage_mw(device, &value) == kNvmlSuccess) {
    state.power_w = value / 1000.0;
  }
  if (api_->temperature && api_->temperature(device, kNvmlTemperatureGpu, &value) == kNvmlSuccess) {
    state.temperature_c = value;
  }
  unsigned long long reasons = 0;
  if (api_->clock_event_reasons && api_->clock_event_reasons(device, &reasons) == kNvmlSuccess) {
    state.throttle_reasons = clock_event_reason_names(reasons);
  }
  return state;
}

std::optional<std::string> NvmlProbe::driver_version() const {
  if (!api_ || !api_->driver_version) {
    return std::nullopt;
  }
  char version[kDriverVersionBufferSize] = {};
  if (api_->driver_version(version, kDriverVersionBufferSize) != kNvmlSuccess) {
    return std::nullopt;
  }
  return std::string(version);
}

std::optional<unsigned> NvmlProbe::max_sm_clock_mhz(const std::string& pci_bus_id) const {
  const auto device = static_cast<NvmlDevice>(device_handle(pci_bus_id));
  unsigned mhz = 0;
  if (device == nullptr || !api_->max_clock_info ||
      api_->max_clock_info(device, kNvmlClockSm, &mhz) != kNvmlSuccess) {
    return std::nullopt;
  }
  return mhz;
}

std::optional<double> NvmlProbe::power_limit_w(const std::string& pci_bus_id) const {
  const auto device = static_cast<NvmlDevice>(device_handle(pci_bus_id));
  unsigned milliwatts = 0;
  if (device == nullptr || !api_->power_limit_mw ||
      api_->power_limit_mw(device, &milliwatts) != kNvmlSuccess) {
    return std::nullopt;
  }
  return milliwatts / 1000.0;
}

}  // namespace aisp
