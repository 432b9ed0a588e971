// A trivial kernel compiled with the same architectures as every pair: if the device cannot run
// it, no GPU pair of this binary can, and the worker skips them with a rebuild hint.
#include <string>

#include "system/device_snapshot.hpp"

namespace aisp {
namespace {
__global__ void arch_probe_kernel() {}
}  // namespace

bool binary_runs_on_current_device(std::string* error) {
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, arch_probe_kernel);
  if (status != cudaSuccess) {
    if (error != nullptr) *error = cudaGetErrorString(status);
    cudaGetLastError();
    return false;
  }
  return true;
}

}  // namespace aisp
