#include "measure/stream_join_analysis.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace aisp {

std::vector<std::size_t> find_unjoined_work(const std::vector<TracedWork>& work,
                                            const std::vector<TracedEventRecord>& events,
                                            const std::vector<TracedSynchronization>& syncs,
                                            TracedStream end_stream,
                                            std::uint32_t end_correlation) {
  std::unordered_map<std::uint64_t, const TracedEventRecord*> record_of;
  for (const TracedEventRecord& event : events)
    record_of[event.sync_id] = &event;

  // joined_to[s]: every operation of stream s issued before this correlation finished before the
  // end marker started. context_joined_to[c]: the same for every stream of context c.
  std::map<TracedStream, std::uint32_t> joined_to;
  std::map<std::uint32_t, std::uint32_t> context_joined_to;
  joined_to[end_stream] = end_correlation;
  const auto joined = [&](const TracedStream& s) {
    std::uint32_t to = 0;
    if (const auto it = joined_to.find(s); it != joined_to.end())
      to = it->second;
    if (const auto it = context_joined_to.find(s.context); it != context_joined_to.end())
      to = std::max(to, it->second);
    return to;
  };
  const auto raise = [](auto& map, const auto& key, std::uint32_t to) {
    std::uint32_t& current = map[key];
    if (to <= current)
      return false;
    current = to;
    return true;
  };

  // Each pass can only raise a bound, and each synchronization raises at most one, so the loop
  // ends after at most syncs.size() + 1 passes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const TracedSynchronization& sync : syncs) {
      if (sync.correlation >= end_correlation)
        continue;  // after the end: joins nothing of the call
      const TracedEventRecord* record = nullptr;
      if (const auto it = record_of.find(sync.event_sync_id);
          it != record_of.end() && it->second->correlation < sync.correlation)
        record = it->second;
      switch (sync.kind) {
      case TracedSyncKind::stream_wait_event:
        // The waiting stream reaches its end-joined point only after the event's work is done.
        if (record != nullptr && sync.correlation < joined(sync.stream))
          changed |= raise(joined_to, record->stream, record->correlation);
        break;
      case TracedSyncKind::event_synchronize:
        if (record != nullptr)
          changed |= raise(joined_to, record->stream, record->correlation);
        break;
      case TracedSyncKind::stream_synchronize:
        changed |= raise(joined_to, sync.stream, sync.correlation);
        break;
      case TracedSyncKind::context_synchronize:
        changed |= raise(context_joined_to, sync.stream.context, sync.correlation);
        break;
      }
    }
  }

  std::vector<std::size_t> unjoined;
  for (std::size_t i = 0; i < work.size(); ++i) {
    const TracedWork& op = work[i];
    if (op.stream == end_stream || op.host_waited)
      continue;
    if (op.correlation >= joined(op.stream))
      unjoined.push_back(i);
  }
  return unjoined;
}

}  // namespace aisp
