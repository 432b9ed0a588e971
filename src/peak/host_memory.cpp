// Host memory bandwidth: a copy between two buffers far larger than any cache, split into one
// contiguous band per hardware thread (one std::thread each, all started together), host clock
// around the whole copy. Bytes counted: read + written, as for the device copy. The figure is
// the ceiling of CPU pairs that declare Ceiling::host_memory_bandwidth; no GPU is involved, so
// `bench peak` measures it on any machine (docs/peaks.md).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "aisp/dtype.hpp"
#include "core/random_fill.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

constexpr char kSourceName[] = "bench_peak.host_copy_source";

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using HostBuffer = std::unique_ptr<unsigned char, FreeDeleter>;

HostBuffer page_aligned(std::size_t bytes) {
  auto* data = static_cast<unsigned char*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
  if (data == nullptr)
    throw std::runtime_error(fmt::format("out of host memory for two {} copy buffers: rerun "
                                         "with --quick or free memory",
                                         size_text(bytes)));
  return HostBuffer(data);
}

// Copies [0, bytes) from source to destination in `threads` bands, one thread per band.
void parallel_copy(unsigned char* destination, const unsigned char* source, std::size_t bytes,
                   unsigned threads) {
  std::vector<std::thread> workers;
  workers.reserve(threads);
  const std::size_t band = (bytes / threads + 63) / 64 * 64;
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(bytes, t * band);
    const std::size_t end = std::min(bytes, begin + band);
    if (begin < end)
      workers.emplace_back([=] { std::memcpy(destination + begin, source + begin, end - begin); });
  }
  for (std::thread& worker : workers)
    worker.join();
}

}  // namespace

PeakSamples measure_host_memory_bandwidth(std::size_t bytes, const RepetitionPlan& plan) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  HostBuffer source = page_aligned(bytes), destination = page_aligned(bytes);
  detail::fill_uniform_host(DType::f32, source.get(), bytes / sizeof(float),
                            detail::fill_key(1, kSourceName, sizeof(kSourceName) - 1), -1.0, 1.0,
                            static_cast<int>(threads));
  std::memset(destination.get(), 0, bytes);  // every page resident: no first-touch faults timed
  PeakSamples samples;
  samples.values =
      rates_per_second(2.0 * static_cast<double>(bytes) / 1e9, time_host_repetitions(plan, [&] {
                         parallel_copy(destination.get(), source.get(), bytes, threads);
                       }));
  // A copy that did not happen must not be timed as one.
  if (std::memcmp(destination.get(), source.get(), bytes) != 0)
    throw std::runtime_error("host memory copy: the destination differs from the source after "
                             "the timed copies");
  samples.tool = "memcpy";
  samples.method = fmt::format("host memory copy of {} (random floats) in {} bands, one "
                               "std::thread each (thread start included), host clock around "
                               "each copy, bytes read + written",
                               size_text(bytes), threads);
  return samples;
}

}  // namespace aisp::peak
