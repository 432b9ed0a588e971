// What the worker knows of the GPU before running a pair, and whether a pair's requirements
// are met. An unmet requirement is a skip with a reason that says what is missing.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>
#include <string>

#include "aisp/benchmark.hpp"

namespace aisp {

struct DeviceSnapshot {
  int device_count = 0;
  std::string error;  // why no GPU is usable; empty when one is
  int device = 0;
  std::string name;
  int compute_capability = 0;  // major * 10 + minor
  std::size_t free_bytes = 0;
  bool binary_has_code = false;  // this binary carries machine code or PTX the GPU can run
  std::string code_error;
};

DeviceSnapshot probe_device(int device);

// Why `call` (cudaGetDeviceCount, cudaGetDeviceProperties, ...) found no usable GPU, in the words a
// user acts on: "no NVIDIA driver or GPU found" where no driver is installed (the runtime reports
// that as an insufficient driver, which would send the user looking for a driver update), "no
// NVIDIA GPU visible (...)" where the driver sees none, the driver's and the binary's CUDA
// versions where the driver is too old, else the call and CUDA's own message.
std::string describe_gpu_unavailable(const char* call, cudaError_t error);

// nullopt when every requirement holds; otherwise the skip reason.
std::optional<std::string> unmet_requirement(const Requirements& requirements,
                                             const DeviceSnapshot& snapshot);

// How many GPUs a pair runs on, or why it cannot run with the GPUs asked for. CPU pairs get 0.
// A pair gets its min_gpus when `requested_gpus` (bench run --gpus) is 0; otherwise a multi-GPU
// pair (min_gpus > 1) gets exactly `requested_gpus`, and a one-GPU pair still runs on one GPU.
// A multi-GPU pair is skipped when --gpus gives it fewer GPUs than it needs, or asks for more
// than the `visible_gpus`; too few visible for min_gpus itself is unmet_requirement's to say.
struct GpuAssignment {
  int devices = 0;
  std::string skip_reason;  // non-empty: skip the pair with it
};
GpuAssignment assign_gpus(const Requirements& requirements, int requested_gpus, int visible_gpus);

// True when the binary was built with code this device can run (probes a trivial kernel).
bool binary_runs_on_current_device(std::string* error);

}  // namespace aisp
