#include "system/device_snapshot.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>

#include "system/build_info.hpp"

namespace aisp {

std::string describe_gpu_unavailable(const char* call, cudaError_t error) {
  int driver_version = 0;
  if (cudaDriverGetVersion(&driver_version) != cudaSuccess) driver_version = 0;
  cudaGetLastError();
  if (error == cudaErrorInsufficientDriver && driver_version == 0)
    return "no NVIDIA driver or GPU found (libcuda.so.1 is not installed)";
  if (error == cudaErrorNoDevice)
    return "no NVIDIA GPU visible (the driver sees none: check nvidia-smi and "
           "CUDA_VISIBLE_DEVICES)";
  if (error == cudaErrorInsufficientDriver)
    return fmt::format("the NVIDIA driver supports CUDA {}.{} but this binary needs {}.{}: update "
                       "the driver",
                       driver_version / 1000, driver_version % 1000 / 10, CUDART_VERSION / 1000,
                       CUDART_VERSION % 1000 / 10);
  return fmt::format("{}: {} ({})", call, cudaGetErrorString(error), cudaGetErrorName(error));
}

DeviceSnapshot probe_device(int device) {
  DeviceSnapshot s;
  s.device = device;
  const cudaError_t count_status = cudaGetDeviceCount(&s.device_count);
  if (count_status != cudaSuccess) {
    s.device_count = 0;
    cudaGetLastError();
    s.error = describe_gpu_unavailable("cudaGetDeviceCount", count_status);
    return s;
  }
  if (s.device_count == 0) {
    s.error = describe_gpu_unavailable("cudaGetDeviceCount", cudaErrorNoDevice);
    return s;
  }
  if (device >= s.device_count) {
    s.error = fmt::format("device {} requested but only {} visible", device, s.device_count);
    return s;
  }
  cudaDeviceProp props{};
  if (const cudaError_t e = cudaGetDeviceProperties(&props, device); e != cudaSuccess) {
    s.error = fmt::format("cudaGetDeviceProperties: {}", cudaGetErrorString(e));
    return s;
  }
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    s.error = fmt::format("cudaSetDevice({}): {}", device, cudaGetErrorString(e));
    return s;
  }
  s.name = props.name;
  s.compute_capability = props.major * 10 + props.minor;
  std::size_t total = 0;
  if (cudaMemGetInfo(&s.free_bytes, &total) != cudaSuccess) cudaGetLastError();
  s.binary_has_code = binary_runs_on_current_device(&s.code_error);
  return s;
}

namespace {

// Compute capabilities whose architecture has the feature. wgmma needs exactly sm_90a, tcgen05
// the Blackwell datacenter parts; TMA and clusters arrived with Hopper; FP8 with Ada.
bool has_feature(Feature feature, int cc) {
  switch (feature) {
  case Feature::tma:
  case Feature::thread_block_clusters: return cc >= 90;
  case Feature::wgmma: return cc == 90;
  case Feature::fp8: return cc >= 89;
  case Feature::tcgen05: return cc == 100 || cc == 103;
  }
  return false;
}

}  // namespace

std::optional<std::string> unmet_requirement(const Requirements& r, const DeviceSnapshot& s) {
  if (r.cpu_only) return std::nullopt;
  if (!s.error.empty())
    return r.min_gpus > 1 ? fmt::format("needs {} GPUs: {}", r.min_gpus, s.error)
                          : fmt::format("needs a GPU: {}", s.error);
  if (s.device_count < r.min_gpus)
    return fmt::format("needs {} GPU{}, {} visible (CUDA_VISIBLE_DEVICES may hide some); run it on "
                       "a machine with {} or more",
                       r.min_gpus, r.min_gpus == 1 ? "" : "s", s.device_count, r.min_gpus);
  if (!s.binary_has_code)
    return fmt::format("this binary has no code for {} (sm_{}): built for {}; rebuild with "
                       "-DCMAKE_CUDA_ARCHITECTURES={} ({})",
                       s.name, s.compute_capability, build_info().cuda_architectures,
                       s.compute_capability, s.code_error);
  if (s.compute_capability < r.min_compute_capability)
    return fmt::format("needs compute capability {}.{} or newer; {} is {}.{}",
                       r.min_compute_capability / 10, r.min_compute_capability % 10, s.name,
                       s.compute_capability / 10, s.compute_capability % 10);
  for (Feature f : r.features)
    if (!has_feature(f, s.compute_capability))
      return fmt::format("needs {}, which {} (sm_{}) lacks", feature_name(f), s.name,
                         s.compute_capability);
  if (r.min_free_device_bytes > s.free_bytes)
    return fmt::format("needs {:.1f} GiB of free device memory; {:.1f} GiB free",
                       static_cast<double>(r.min_free_device_bytes) / (1u << 30),
                       static_cast<double>(s.free_bytes) / (1u << 30));
  return std::nullopt;
}

GpuAssignment assign_gpus(const Requirements& r, int requested, int visible) {
  GpuAssignment a;
  if (r.cpu_only) return a;
  const int needed = std::max(1, r.min_gpus);
  if (requested <= 0 || needed == 1) {
    a.devices = needed;
    return a;
  }
  if (requested < needed) {
    a.skip_reason = fmt::format("needs {} GPUs; --gpus {} gives it {}: run it with --gpus {} or "
                                "more, or without --gpus",
                                needed, requested, requested, needed);
    return a;
  }
  if (requested > visible) {
    a.skip_reason = fmt::format("--gpus {} asks for {} GPUs and {} {} visible (CUDA_VISIBLE_DEVICES "
                                "may hide some): lower --gpus to {} or fewer",
                                requested, requested, visible, visible == 1 ? "is" : "are",
                                visible);
    return a;
  }
  a.devices = requested;
  return a;
}

}  // namespace aisp
