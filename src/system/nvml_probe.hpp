// NVML, loaded at run time: SM and memory clocks, power, temperature and clock-event (throttle)
// reasons recorded around each measurement. The binary links no NVML symbol, so it runs where
// the driver or the GPU is absent; then available() is false and unavailable_reason() says why.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

// Names of the set bits of an NVML clock-event reason mask ("sw_power_cap", "hw_slowdown", ...),
// lowest bit first; bits NVML does not document become "unknown_0x...".
std::vector<std::string> clock_event_reason_names(unsigned long long mask);

class NvmlProbe {
 public:
  // Tries "libnvidia-ml.so.1", then "libnvidia-ml.so", and initializes NVML.
  NvmlProbe();
  // Tries the given library names in order (tests pass a name that does not exist).
  explicit NvmlProbe(const std::vector<std::string>& library_names);
  ~NvmlProbe();

  NvmlProbe(const NvmlProbe&) = delete;
  NvmlProbe& operator=(const NvmlProbe&) = delete;
  NvmlProbe(NvmlProbe&&) = delete;
  NvmlProbe& operator=(NvmlProbe&&) = delete;

  bool available() const { return api_ != nullptr; }
  // Empty when available(); otherwise what failed and what to do about it.
  const std::string& unavailable_reason() const { return unavailable_reason_; }

  // Current state of the GPU at this PCI bus id (as cudaDeviceGetPCIBusId writes it, e.g.
  // "0000:19:00.0"), so NVML and CUDA agree on the device whatever CUDA_VISIBLE_DEVICES says.
  // Fields whose query fails stay unset; never throws.
  GpuState read_state(const std::string& pci_bus_id) const;

  std::optional<std::string> driver_version() const;  // "580.95.05"
  std::optional<unsigned> max_sm_clock_mhz(const std::string& pci_bus_id) const;
  // nvmlDeviceGetPowerManagementLimit: the board's current power cap, in watts.
  std::optional<double> power_limit_w(const std::string& pci_bus_id) const;

 private:
  struct Api;  // the resolved NVML entry points

  // The NVML handle of the device, as an opaque pointer; nullptr when not found.
  void* device_handle(const std::string& pci_bus_id) const;

  void* library_ = nullptr;   // dlopen handle
  std::unique_ptr<Api> api_;  // set only once nvmlInit_v2 succeeded
  std::string unavailable_reason_;
};

}  // namespace aisp
