// Host↔device bandwidth through cudaMemcpy, 1 GiB per copy: from and to pinned memory
// (cudaMallocHost; the copy engine reads it directly) and pageable memory (ordinary vectors, fresh
// ones for each group of repetitions; the driver stages them through its own pinned buffers). cudaMemcpy returns when the copy is done, so
// the host clock times it. Bytes counted: the bytes transferred, once.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "aisp/dtype.hpp"
#include "core/random_fill.hpp"
#include "measure/statistics.hpp"
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

// A pageable buffer of `bytes` holding random floats, written in full so every page is resident.
std::vector<float> filled_pageable_buffer(std::size_t bytes) {
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t count = bytes / sizeof(float);
  std::vector<float> buffer(count);
  detail::fill_uniform_host(DType::f32, buffer.data(), count,
                            detail::fill_key(1, kHostName, sizeof(kHostName) - 1), -1.0, 1.0,
                            threads);
  return buffer;
}

HostTransferBenchmark::HostTransferBenchmark(std::size_t bytes, int pageable_allocations)
    : bytes_(bytes), pageable_allocations_(pageable_allocations), device_(bytes), pinned_(bytes) {
  if (bytes == 0 || bytes % sizeof(float) != 0) {
    throw std::invalid_argument("HostTransferBenchmark: the size must be a positive multiple of 4 "
                                "bytes, not " +
                                std::to_string(bytes));
  }
  if (pageable_allocations < 1) {
    throw std::invalid_argument("HostTransferBenchmark: at least one pageable allocation, not " +
                                std::to_string(pageable_allocations));
  }
  const std::vector<float> source = filled_pageable_buffer(bytes);
  std::memcpy(pinned_.get(), source.data(), bytes);
  CudaStream stream;
  detail::fill_uniform_device(DType::f32, device_.get(), bytes / sizeof(float),
                              detail::fill_key(1, kDeviceName, sizeof(kDeviceName) - 1), -1.0, 1.0,
                              stream.get());
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
}

PeakSamples HostTransferBenchmark::measure(HostTransfer transfer, const RepetitionPlan& plan) {
  const std::size_t bytes = bytes_;
  const bool pinned = transfer == HostTransfer::host_to_device_pinned ||
                      transfer == HostTransfer::device_to_host_pinned;
  const bool to_device = transfer == HostTransfer::host_to_device_pinned ||
                         transfer == HostTransfer::host_to_device_pageable;
  const auto copy_with = [&](void* host) {
    return [&, host] {
      if (to_device) {
        AISP_CUDA_CHECK(cudaMemcpy(device_.get(), host, bytes, cudaMemcpyHostToDevice));
      } else {
        AISP_CUDA_CHECK(cudaMemcpy(host, device_.get(), bytes, cudaMemcpyDeviceToHost));
      }
    };
  };
  const TransferDescription description = describe(transfer);
  PeakSamples samples;
  samples.tool = "cudaMemcpy";
  const double gigabytes = static_cast<double>(bytes) / 1e9;
  if (pinned) {
    samples.values = rates_per_second(gigabytes, time_host_repetitions(plan, copy_with(pinned_.get())));
    samples.method = fmt::format("{} copy of {} from/to {} host memory, host clock around each "
                                 "synchronous copy, bytes transferred",
                                 description.direction, size_text(bytes), description.memory);
    return samples;
  }
  // Pageable: the repetitions spread over fresh buffers, one untimed copy each first.
  const int allocations = pageable_allocations_;
  const int per_allocation = std::max(1, (plan.repetitions + allocations - 1) / allocations);
  std::vector<double> allocation_medians;
  for (int allocation = 0; allocation < allocations; ++allocation) {
    std::vector<float> buffer = filled_pageable_buffer(bytes);
    const std::vector<double> rates = rates_per_second(
        gigabytes, time_host_repetitions(RepetitionPlan{per_allocation, 0.0},
                                         copy_with(static_cast<void*>(buffer.data()))));
    samples.values.insert(samples.values.end(), rates.begin(), rates.end());
    allocation_medians.push_back(median(rates));
  }
  const auto [lowest, highest] =
      std::minmax_element(allocation_medians.begin(), allocation_medians.end());
  samples.method = fmt::format(
      "{} copy of {} from/to {} host memory, host clock around each synchronous copy, bytes "
      "transferred; {} repetitions on each of {} fresh buffer{} (written in full, one untimed copy "
      "first), per-buffer medians {:.2f}-{:.2f} GB/s",
      description.direction, size_text(bytes), description.memory, per_allocation, allocations,
      allocations == 1 ? "" : "s", *lowest, *highest);
  return samples;
}

}  // namespace aisp::peak
