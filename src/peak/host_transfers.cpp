// Host↔device bandwidth through cudaMemcpy, 1 GiB per copy: from and to pinned memory
// (cudaMallocHost; the copy engine reads it directly) and pageable memory (an ordinary vector; the
// driver stages it through its own pinned buffers). cudaMemcpy returns when the copy is done, so
// the host clock times it. Bytes counted: the bytes transferred, once.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "aisp/dtype.hpp"
#include "core/random_fill.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

constexpr char kDeviceName[] = "bench_peak.transfer_device";
constexpr char kHostName[] = "bench_peak.transfer_host";

struct TransferDescription {
  const char* direction;  // "host to device"
  const char* memory;     // "pinned"
};

TransferDescription describe(HostTransfer transfer) {
  switch (transfer) {
  case HostTransfer::host_to_device_pinned:
    return {"host to device", "pinned (cudaMallocHost)"};
  case HostTransfer::device_to_host_pinned:
    return {"device to host", "pinned (cudaMallocHost)"};
  case HostTransfer::host_to_device_pageable:
    return {"host to device", "pageable (std::vector)"};
  case HostTransfer::device_to_host_pageable:
    return {"device to host", "pageable (std::vector)"};
  }
  return {"?", "?"};
}

}  // namespace

HostTransferBenchmark::HostTransferBenchmark(std::size_t bytes)
    : bytes_(bytes), device_(bytes), pinned_(bytes), pageable_(bytes / sizeof(float)) {
  if (bytes == 0 || bytes % sizeof(float) != 0) {
    throw std::invalid_argument("HostTransferBenchmark: the size must be a positive multiple of 4 "
                                "bytes, not " +
                                std::to_string(bytes));
  }
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t count = bytes / sizeof(float);
  // The pageable buffer is written in full here, so every page is resident before timing.
  detail::fill_uniform_host(DType::f32, pageable_.data(), count,
                            detail::fill_key(1, kHostName, sizeof(kHostName) - 1), -1.0, 1.0,
                            threads);
  std::memcpy(pinned_.get(), pageable_.data(), count * sizeof(float));
  CudaStream stream;
  detail::fill_uniform_device(DType::f32, device_.get(), count,
                              detail::fill_key(1, kDeviceName, sizeof(kDeviceName) - 1), -1.0, 1.0,
                              stream.get());
}

PeakSamples HostTransferBenchmark::measure(HostTransfer transfer, const RepetitionPlan& plan) {
  const std::size_t bytes = bytes_;
  void* host = transfer == HostTransfer::host_to_device_pinned ||
                       transfer == HostTransfer::device_to_host_pinned
                   ? pinned_.get()
                   : static_cast<void*>(pageable_.data());
  const bool to_device = transfer == HostTransfer::host_to_device_pinned ||
                         transfer == HostTransfer::host_to_device_pageable;
  const std::vector<double> seconds = time_host_repetitions(plan, [&] {
    if (to_device) {
      AISP_CUDA_CHECK(cudaMemcpy(device_.get(), host, bytes, cudaMemcpyHostToDevice));
    } else {
      AISP_CUDA_CHECK(cudaMemcpy(host, device_.get(), bytes, cudaMemcpyDeviceToHost));
    }
  });
  const TransferDescription description = describe(transfer);
  PeakSamples samples;
  samples.values = rates_per_second(static_cast<double>(bytes) / 1e9, seconds);
  samples.method = fmt::format("{} copy of {} from/to {} host memory, host clock around each "
                               "synchronous copy, bytes transferred",
                               description.direction, size_text(bytes), description.memory);
  samples.tool = "cudaMemcpy";
  return samples;
}

}  // namespace aisp::peak
