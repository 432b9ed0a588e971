// NCCL collectives' bus bandwidth over every visible GPU (one process, one rank per GPU,
// ncclCommInitAll through the harness's loaded NCCL), over a sweep of buffer sizes, as
// nccl-tests measures it: f32 data, out of place, every rank's call on its own GPU's stream in one
// group; a repetition is timed by events on GPU 0's stream, which forks to every other GPU's
// stream before the group and joins each back after it, so the time is the slowest rank's. The
// all-to-all is one group of every rank's ncclSend/ncclRecv to and from every rank (nccl-tests'
// alltoall, and how NCCL's own ncclAlltoAll is built). Bus bandwidth: nccl_busbw.hpp. The figure
// is the sweep's largest size; the method lists every size's median.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "aisp/benchmark.hpp"
#include "aisp/check.hpp"
#include "aisp/dtype.hpp"
#include "aisp/nccl.hpp"
#include "core/nccl_library.hpp"
#include "core/random_fill.hpp"
#include "measure/statistics.hpp"
#include "peak/measurements.hpp"
#include "peak/nccl_busbw.hpp"

namespace aisp::peak {

#if AISP_HAVE_NCCL
namespace {

constexpr char kSendName[] = "bench_peak.nccl_send";

// The communicators of devices 0 .. gpus-1, destroyed on the way out.
class Communicators {
 public:
  explicit Communicators(int gpus) : comms_(detail::create_nccl_communicators(gpus)) {}
  ~Communicators() { detail::destroy_nccl_communicators(comms_); }
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;
  ncclComm* at(int rank) const { return comms_[static_cast<std::size_t>(rank)]; }

 private:
  std::vector<ncclComm*> comms_;
};

// Makes `device` current, so the members after it are created there.
std::size_t on_device(int device, std::size_t bytes) {
  AISP_CUDA_CHECK(cudaSetDevice(device));
  return bytes;
}

// One rank's buffers, stream and join event, created on its device.
struct Rank {
  Rank(int device, std::size_t send_bytes, std::size_t receive_bytes)
      : send(on_device(device, send_bytes)), receive(receive_bytes) {}
  DeviceMemory send;
  DeviceMemory receive;
  CudaStream stream;
  CudaEvent joined;
};

void enqueue(NcclCollective collective, const NcclFunctions& nccl, const Communicators& comms,
             std::vector<Rank>& ranks, std::size_t bytes) {
  const int n = static_cast<int>(ranks.size());
  const std::size_t parts = collective == NcclCollective::all_reduce ? 1 : ranks.size();
  const std::size_t part = bytes / parts / sizeof(float);  // elements per part
  AISP_NCCL_CHECK(nccl.GroupStart());
  for (int r = 0; r < n; ++r) {
    Rank& rank = ranks[static_cast<std::size_t>(r)];
    float* send = static_cast<float*>(rank.send.get());
    float* receive = static_cast<float*>(rank.receive.get());
    const cudaStream_t stream = rank.stream.get();
    switch (collective) {
    case NcclCollective::all_reduce:
      AISP_NCCL_CHECK(
          nccl.AllReduce(send, receive, part, ncclFloat32, ncclSum, comms.at(r), stream));
      break;
    case NcclCollective::all_gather:
      AISP_NCCL_CHECK(nccl.AllGather(send, receive, part, ncclFloat32, comms.at(r), stream));
      break;
    case NcclCollective::reduce_scatter:
      AISP_NCCL_CHECK(
          nccl.ReduceScatter(send, receive, part, ncclFloat32, ncclSum, comms.at(r), stream));
      break;
    case NcclCollective::all_to_all:
      for (int peer = 0; peer < n; ++peer) {
        const std::size_t offset = static_cast<std::size_t>(peer) * part;
        AISP_NCCL_CHECK(nccl.Send(send + offset, part, ncclFloat32, peer, comms.at(r), stream));
        AISP_NCCL_CHECK(nccl.Recv(receive + offset, part, ncclFloat32, peer, comms.at(r), stream));
      }
      break;
    }
  }
  AISP_NCCL_CHECK(nccl.GroupEnd());
}

}  // namespace

PeakSamples measure_nccl_bus_bandwidth(NcclCollective collective, int gpus,
                                       const std::vector<std::size_t>& sizes,
                                       const RepetitionPlan& plan) {
  if (gpus < 2 || sizes.empty())
    throw std::invalid_argument("measure_nccl_bus_bandwidth: needs 2 or more GPUs and a size");
  const NcclFunctions& nccl = nccl_functions();  // Unavailable without the library
  std::vector<std::size_t> buffers;
  for (const std::size_t size : sizes)
    if (const std::size_t bytes = nccl_buffer_bytes(collective, size, gpus); bytes > 0)
      buffers.push_back(bytes);
  if (buffers.empty())
    throw std::invalid_argument("measure_nccl_bus_bandwidth: every size is too small to give one "
                                "float to each rank");
  const std::size_t largest = *std::max_element(buffers.begin(), buffers.end());
  const Communicators comms(gpus);
  // Input: the whole buffer for all-reduce, reduce-scatter and all-to-all, one part for
  // all-gather; output: one part for reduce-scatter, the whole buffer otherwise.
  const std::size_t part_bytes = largest / static_cast<std::size_t>(gpus);
  const std::size_t send_bytes = collective == NcclCollective::all_gather ? part_bytes : largest;
  const std::size_t receive_bytes =
      collective == NcclCollective::reduce_scatter ? part_bytes : largest;
  std::vector<Rank> ranks;
  ranks.reserve(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) {
    ranks.emplace_back(d, send_bytes, receive_bytes);
    detail::fill_uniform_device(
        DType::f32, ranks.back().send.get(), send_bytes / sizeof(float),
        detail::fill_key(static_cast<std::uint64_t>(d) + 1, kSendName, sizeof(kSendName) - 1), -1.0,
        1.0, ranks.back().stream.get());
  }
  for (int d = 0; d < gpus; ++d) {
    AISP_CUDA_CHECK(cudaSetDevice(d));
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  AISP_CUDA_CHECK(cudaSetDevice(0));
  CudaEvent forked;  // on GPU 0
  const cudaStream_t timed = ranks.front().stream.get();
  std::vector<std::string> sweep;
  std::vector<double> largest_rates;
  for (const std::size_t bytes : buffers) {
    const std::vector<double> milliseconds = time_stream_repetitions(timed, plan, [&] {
      AISP_CUDA_CHECK(cudaEventRecord(forked.get(), timed));
      for (std::size_t r = 1; r < ranks.size(); ++r)
        AISP_CUDA_CHECK(cudaStreamWaitEvent(ranks[r].stream.get(), forked.get(), 0));
      enqueue(collective, nccl, comms, ranks, bytes);
      for (std::size_t r = 1; r < ranks.size(); ++r) {
        AISP_CUDA_CHECK(cudaEventRecord(ranks[r].joined.get(), ranks[r].stream.get()));
        AISP_CUDA_CHECK(cudaStreamWaitEvent(timed, ranks[r].joined.get(), 0));
      }
    });
    std::vector<double> rates;
    for (const double ms : milliseconds)
      rates.push_back(nccl_bus_gbps(collective, bytes, gpus, ms * 1e-3));
    sweep.push_back(fmt::format("{} {:.1f}", size_text(bytes), median(rates)));
    if (bytes == largest)
      largest_rates = std::move(rates);
  }
  PeakSamples samples;
  samples.values = std::move(largest_rates);
  samples.method = fmt::format(
      "{} of {} per rank (nccl-tests' size: f32, out of place), {} ranks on GPUs 0..{}, one "
      "process; events on GPU 0's stream forked to and joined from every rank's; bus bandwidth "
      "= size / time x {:.3g} (nccl-tests); median bus GB/s by size: {}",
      nccl_collective_name(collective), size_text(largest), gpus, gpus - 1,
      nccl_bus_factor(collective, gpus), fmt::join(sweep, ", "));
  samples.tool = fmt::format(
      "NCCL {}.{}.{}{}", nccl.version / 10000, nccl.version / 100 % 100, nccl.version % 100,
      collective == NcclCollective::all_to_all ? " (grouped ncclSend/ncclRecv to every rank)" : "");
  return samples;
}

#else

PeakSamples measure_nccl_bus_bandwidth(NcclCollective, int, const std::vector<std::size_t>&,
                                       const RepetitionPlan&) {
  throw Unavailable("this build has no NCCL (no nccl.h at configure time, or "
                    "-DAISP_WITH_NCCL=OFF)");
}

#endif

}  // namespace aisp::peak
