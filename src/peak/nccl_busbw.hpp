// NCCL's bus bandwidth: the arithmetic behind `bench peak`'s nccl_*_busbw figures, kept apart
// from the measurement so a CPU test can check it (tests/unit/test_nccl_busbw.cpp). The
// definitions are nccl-tests' (its doc/PERFORMANCE.md): for a collective over n ranks, with S the
// size of the whole buffer of one rank (all-reduce: its input; all-gather: its output, n parts;
// reduce-scatter: its input, n parts; all-to-all: its send buffer, n parts) and t the time,
// algorithm bandwidth = S / t and bus bandwidth = algorithm bandwidth x factor:
//   all-reduce        2(n-1)/n  (a ring sends each byte 2(n-1)/n times over each rank's link)
//   all-gather        (n-1)/n
//   reduce-scatter    (n-1)/n
//   all-to-all        (n-1)/n
// so bus bandwidth is comparable across collectives and rank counts, and with the link's speed.
#pragma once

#include <cstddef>
#include <string_view>

namespace aisp::peak {

enum class NcclCollective { all_reduce, all_gather, reduce_scatter, all_to_all };

// "all_reduce", "all_gather", "reduce_scatter", "all_to_all".
std::string_view nccl_collective_name(NcclCollective collective);
// The figure's name in `bench peak`: "nccl_all_reduce_busbw", ...
std::string_view nccl_busbw_figure_name(NcclCollective collective);

// The factor above. Throws std::invalid_argument for ranks < 1.
double nccl_bus_factor(NcclCollective collective, int ranks);

// Bytes of the whole buffer of one rank (S above) that a collective over `ranks` moves when
// asked for about `requested` bytes: rounded down to whole float elements and, for the
// collectives cut into one part per rank, to whole parts. 0 when not even one element per part
// fits.
std::size_t nccl_buffer_bytes(NcclCollective collective, std::size_t requested, int ranks);

// GB/s (1e9 bytes per second). Throws std::invalid_argument when seconds <= 0.
double nccl_algorithm_gbps(std::size_t bytes, double seconds);
double nccl_bus_gbps(NcclCollective collective, std::size_t bytes, int ranks, double seconds);

}  // namespace aisp::peak
