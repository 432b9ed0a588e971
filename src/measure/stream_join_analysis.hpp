// Decides, from the order of a traced call's API records rather than from their timestamps,
// whether each operation the call put on another stream than the end stream was joined back
// before the call's end (docs/integrity.md, class 5). A timeline cannot see slack of tens of
// microseconds: under CUPTI a call runs milliseconds slower, so unjoined side work still ends
// before the end marker. The order of the records does not depend on speed.
//
// The rule: the end stream is joined up to its end marker. A stream t joined up to correlation J
// makes every event recorded on stream s and waited on by t (cudaStreamWaitEvent) before J join s
// up to that record; a host wait (cudaEventSynchronize on such an event, cudaStreamSynchronize,
// cudaDeviceSynchronize) before the end marker joins what it waited for. Repeated until nothing
// changes, so chains of streams are followed. An operation is joined when its stream is joined
// past it. Correlation ids order the API calls of a process (they grow with every call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aisp {

struct TracedStream {
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  friend bool operator==(const TracedStream&, const TracedStream&) = default;
  friend auto operator<=>(const TracedStream&, const TracedStream&) = default;
};

struct TracedWork {
  std::string what;  // "kernel side_work", "memcpy 4096 B"
  TracedStream stream;
  std::uint32_t correlation = 0;
  // A copy the host waited for (a synchronous copy to or from host memory): done when the call
  // that issued it returned.
  bool host_waited = false;
};

struct TracedEventRecord {  // cudaEventRecord
  TracedStream stream;
  std::uint32_t correlation = 0;
  std::uint64_t sync_id = 0;  // CUPTI's id tying waits and synchronizes to this record
};

enum class TracedSyncKind { event_synchronize, stream_wait_event, stream_synchronize,
                            context_synchronize };

struct TracedSynchronization {
  TracedSyncKind kind = TracedSyncKind::stream_synchronize;
  TracedStream stream;  // the stream that waits or is synchronized (context only, for a context)
  std::uint32_t correlation = 0;
  std::uint64_t event_sync_id = 0;  // the event record waited for (event kinds only)
};

// Indices into `work` of the operations not joined into `end_stream` before `end_correlation`
// (the end marker's). Operations on the end stream are joined by definition.
std::vector<std::size_t> find_unjoined_work(const std::vector<TracedWork>& work,
                                            const std::vector<TracedEventRecord>& events,
                                            const std::vector<TracedSynchronization>& syncs,
                                            TracedStream end_stream,
                                            std::uint32_t end_correlation);

}  // namespace aisp
