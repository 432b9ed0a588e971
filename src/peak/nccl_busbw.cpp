// nccl_busbw.hpp: nccl-tests' bus bandwidth arithmetic.
#include "peak/nccl_busbw.hpp"

#include <stdexcept>
#include <string>

namespace aisp::peak {

std::string_view nccl_collective_name(NcclCollective collective) {
  switch (collective) {
  case NcclCollective::all_reduce:
    return "all_reduce";
  case NcclCollective::all_gather:
    return "all_gather";
  case NcclCollective::reduce_scatter:
    return "reduce_scatter";
  case NcclCollective::all_to_all:
    return "all_to_all";
  }
  return "unknown";
}

std::string_view nccl_busbw_figure_name(NcclCollective collective) {
  switch (collective) {
  case NcclCollective::all_reduce:
    return "nccl_all_reduce_busbw";
  case NcclCollective::all_gather:
    return "nccl_all_gather_busbw";
  case NcclCollective::reduce_scatter:
    return "nccl_reduce_scatter_busbw";
  case NcclCollective::all_to_all:
    return "nccl_all_to_all_busbw";
  }
  return "nccl_unknown_busbw";
}

double nccl_bus_factor(NcclCollective collective, int ranks) {
  if (ranks < 1)
    throw std::invalid_argument("nccl_bus_factor: needs at least 1 rank, got " +
                                std::to_string(ranks));
  const double n = ranks;
  return collective == NcclCollective::all_reduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

std::size_t nccl_buffer_bytes(NcclCollective collective, std::size_t requested, int ranks) {
  constexpr std::size_t kElement = sizeof(float);
  if (ranks < 1)
    return 0;
  const std::size_t parts =
      collective == NcclCollective::all_reduce ? 1 : static_cast<std::size_t>(ranks);
  return requested / (parts * kElement) * parts * kElement;
}

double nccl_algorithm_gbps(std::size_t bytes, double seconds) {
  if (!(seconds > 0))
    throw std::invalid_argument("nccl_algorithm_gbps: the time must be positive, got " +
                                std::to_string(seconds) + " s");
  return static_cast<double>(bytes) / 1e9 / seconds;
}

double nccl_bus_gbps(NcclCollective collective, std::size_t bytes, int ranks, double seconds) {
  return nccl_algorithm_gbps(bytes, seconds) * nccl_bus_factor(collective, ranks);
}

}  // namespace aisp::peak
