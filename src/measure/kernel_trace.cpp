#include "measure/kernel_trace.hpp"

#include "measure/stream_join_analysis.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include <fmt/format.h>

namespace aisp {
namespace {

// The CUPTI functions the tracer calls, looked up in the library loaded at run time; the header
// gives their types only, nothing is linked against libcupti.
struct CuptiApi {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiGetVersion) version = nullptr;
  decltype(&cuptiGetStreamIdEx) stream_id = nullptr;
};
CuptiApi api;

constexpr std::uint32_t kMarkerValue = 0x5A;
constexpr std::size_t kMarkerBytes = 16;
constexpr CUpti_ActivityKind kTracedKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
// For the structural join check; without them the trace falls back to the timeline alone.
constexpr CUpti_ActivityKind kJoinKinds[] = {CUPTI_ACTIVITY_KIND_CUDA_EVENT,
                                             CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};

struct Operation {
  CUpti_ActivityKind kind;
  std::string name;
  std::uint64_t start = 0, end = 0, bytes = 0;
  std::uint32_t stream = 0, value = 0, context = 0, correlation = 0, graph = 0;
  bool host_waited = false;
};

// Filled by CUPTI's buffer-completed callback, which may run on a thread of CUPTI's.
struct Collected {
  std::vector<Operation> operations;
  std::vector<TracedEventRecord> events;
  std::vector<TracedSynchronization> syncs;
  void clear() {
    operations.clear();
    events.clear();
    syncs.clear();
  }
};
std::mutex collected_mutex;
Collected collected;

// A copy the host waits for: synchronous, with host memory at one end.
bool host_waits_for(const CUpti_ActivityMemcpy6& copy) {
  if ((copy.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0)
    return false;
  switch (copy.copyKind) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
    return true;
  default:
    return false;
  }
}

std::optional<TracedSyncKind> sync_kind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
    return TracedSyncKind::event_synchronize;
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
    return TracedSyncKind::stream_wait_event;
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
    return TracedSyncKind::stream_synchronize;
  case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
    return TracedSyncKind::context_synchronize;
  default:
    return std::nullopt;
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr std::size_t kBufferBytes = std::size_t{8} << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  Collected found;
  CUpti_Activity* record = nullptr;
  while (buffer != nullptr && api.next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    Operation op;
    op.kind = record->kind;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      op.name = kernel->name != nullptr ? kernel->name : "?";
      op.start = kernel->start;
      op.end = kernel->end;
      op.stream = kernel->streamId;
      op.context = kernel->contextId;
      op.correlation = kernel->correlationId;
      op.graph = kernel->graphId;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      op.start = copy->start;
      op.end = copy->end;
      op.stream = copy->streamId;
      op.bytes = copy->bytes;
      op.context = copy->contextId;
      op.correlation = copy->correlationId;
      op.graph = copy->graphId;
      op.host_waited = host_waits_for(*copy);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      op.start = set->start;
      op.end = set->end;
      op.stream = set->streamId;
      op.bytes = set->bytes;
      op.value = set->value;
      op.context = set->contextId;
      op.correlation = set->correlationId;
      op.graph = set->graphId;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_CUDA_EVENT) {
      const auto* event = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record);
      found.events.push_back({{event->contextId, event->streamId}, event->correlationId,
                              event->cudaEventSyncId});
      continue;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) {
      const auto* sync = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      if (const auto kind = sync_kind(sync->type); kind && sync->returnValue == 0)
        found.syncs.push_back({*kind, {sync->contextId, sync->streamId}, sync->correlationId,
                               sync->cudaEventSyncId});
      continue;
    } else {
      continue;
    }
    found.operations.push_back(std::move(op));
  }
  std::free(buffer);
  const std::lock_guard<std::mutex> lock(collected_mutex);
  const auto append = [](auto& to, auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  append(collected.operations, found.operations);
  append(collected.events, found.events);
  append(collected.syncs, found.syncs);
}

std::string result_text(CUptiResult result) {
  const char* text = nullptr;
  if (api.result_string != nullptr && api.result_string(result, &text) == CUPTI_SUCCESS &&
      text != nullptr)
    return text;
  return fmt::format("CUPTI error {}", static_cast<int>(result));
}

// Where libcupti may be: the loader's path, then the toolkit the harness was built with (its
// lib folder and extras/CUPTI/lib64).
void* open_cupti(std::string& tried) {
  const std::string soname = fmt::format("libcupti.so.{}", CUPTI_API_VERSION / 10000);
  std::vector<std::string> candidates = {soname, "libcupti.so"};
#ifdef AISP_CUDA_LIBRARY_DIR
  candidates.push_back(std::string(AISP_CUDA_LIBRARY_DIR) + "/" + soname);
  candidates.push_back(std::string(AISP_CUDA_LIBRARY_DIR) + "/../extras/CUPTI/lib64/" + soname);
#endif
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
      return handle;
    tried += (tried.empty() ? "" : ", ") + candidate;
  }
  return nullptr;
}

template <class Fn>
bool find_symbol(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

}  // namespace

KernelTracer::KernelTracer() {
  std::string tried;
  library_ = open_cupti(tried);
  if (library_ == nullptr) {
    reason_ = fmt::format("CUPTI unavailable: no libcupti found (tried {})", tried);
    return;
  }
  const bool found =
      find_symbol(library_, "cuptiActivityRegisterCallbacks", api.register_callbacks) &&
      find_symbol(library_, "cuptiActivityEnable", api.enable) &&
      find_symbol(library_, "cuptiActivityDisable", api.disable) &&
      find_symbol(library_, "cuptiActivityFlushAll", api.flush_all) &&
      find_symbol(library_, "cuptiActivityGetNextRecord", api.next_record) &&
      find_symbol(library_, "cuptiGetResultString", api.result_string) &&
      find_symbol(library_, "cuptiGetVersion", api.version) &&
      find_symbol(library_, "cuptiGetStreamIdEx", api.stream_id);
  if (!found) {
    reason_ = "CUPTI unavailable: the loaded libcupti lacks a function of the activity API";
    return;
  }
  // The records are read through the structures of the header the harness was built with; a
  // CUPTI of another version may lay them out differently.
  std::uint32_t version = 0;
  if (api.version(&version) != CUPTI_SUCCESS || version != CUPTI_API_VERSION) {
    reason_ = fmt::format("CUPTI unavailable: its API version {} differs from the build's {} "
                          "(rebuild against this toolkit)",
                          version, CUPTI_API_VERSION);
    return;
  }
  if (const CUptiResult result = api.register_callbacks(buffer_requested, buffer_completed);
      result != CUPTI_SUCCESS) {
    reason_ = "CUPTI unavailable: cuptiActivityRegisterCallbacks: " + result_text(result);
    return;
  }
  if (cudaMalloc(&marker_, kMarkerBytes) != cudaSuccess) {
    cudaGetLastError();
    reason_ = "CUPTI trace not set up: no device memory for its end marker";
    return;
  }
  available_ = true;
}

KernelTracer::~KernelTracer() {
  if (active_)
    static_cast<void>(finish());
  if (enabled_)
    for (const CUpti_ActivityKind kind : kTracedKinds)
      api.disable(kind);
  if (joins_enabled_)
    for (const CUpti_ActivityKind kind : kJoinKinds)
      api.disable(kind);
  if (marker_ != nullptr)
    cudaFree(marker_);
  // The library stays loaded: CUPTI keeps callbacks registered for the life of the process.
}

void KernelTracer::begin() {
  if (!available_)
    return;
  if (enabled_) {
    // Records of work since the last trace (an L2 flush) are not this call's.
    api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const std::lock_guard<std::mutex> lock(collected_mutex);
    collected.clear();
    active_ = true;
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(collected_mutex);
    collected.clear();
  }
  for (const CUpti_ActivityKind kind : kTracedKinds) {
    if (const CUptiResult result = api.enable(kind); result != CUPTI_SUCCESS) {
      reason_ = "CUPTI trace failed: cuptiActivityEnable: " + result_text(result);
      available_ = false;
      for (const CUpti_ActivityKind other : kTracedKinds)
        api.disable(other);
      return;
    }
  }
  enabled_ = true;
  joins_enabled_ = true;
  for (const CUpti_ActivityKind kind : kJoinKinds) {
    if (const CUptiResult result = api.enable(kind); result != CUPTI_SUCCESS) {
      joins_reason_ = fmt::format("CUPTI does not record {} here ({}): judged by the timeline "
                                  "alone",
                                  kind == CUPTI_ACTIVITY_KIND_CUDA_EVENT ? "CUDA event records"
                                                                         : "synchronizations",
                                  result_text(result));
      joins_enabled_ = false;
      for (const CUpti_ActivityKind other : kJoinKinds)
        api.disable(other);
      break;
    }
  }
  active_ = true;
}

void KernelTracer::end_on(cudaStream_t stream) {
  if (!active_)
    return;
  end_stream_ = 0;
  if (api.stream_id(nullptr, stream, 0, &end_stream_) != CUPTI_SUCCESS)
    end_stream_ = 0;
  if (cudaMemsetAsync(marker_, static_cast<int>(kMarkerValue), kMarkerBytes, stream) !=
      cudaSuccess) {
    cudaGetLastError();
    reason_ = "CUPTI trace failed: the end marker could not be enqueued";
  }
}

KernelTrace KernelTracer::finish() {
  KernelTrace trace;
  if (!active_) {
    trace.not_traced = reason_.empty() ? "not traced" : reason_;
    return trace;
  }
  active_ = false;
  if (const CUptiResult result = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      result != CUPTI_SUCCESS) {
    trace.not_traced = "CUPTI trace failed: cuptiActivityFlushAll: " + result_text(result);
    return trace;
  }
  Collected records;
  {
    const std::lock_guard<std::mutex> lock(collected_mutex);
    std::swap(records, collected);
  }
  std::vector<Operation>& operations = records.operations;
  // The marker is the last 16-byte memset on the end stream (a memset of run()'s own on that
  // stream comes before it). Its value is not relied on: CUPTI's record of it is not documented
  // to hold the byte as passed.
  const auto is_marker = [&](const Operation& op) {
    return op.kind == CUPTI_ACTIVITY_KIND_MEMSET && op.bytes == kMarkerBytes &&
           (end_stream_ == 0 || op.stream == end_stream_);
  };
  const auto marker = std::max_element(
      operations.begin(), operations.end(), [&](const Operation& a, const Operation& b) {
        return (is_marker(a) ? a.start : 0) < (is_marker(b) ? b.start : 0);
      });
  if (marker == operations.end() || !is_marker(*marker)) {
    trace.not_traced =
        reason_.empty() ? "CUPTI trace failed: the end marker was not recorded" : reason_;
    return trace;
  }
  trace.traced = true;
  trace.end_stream = marker->stream;
  const auto describe = [](const Operation& op) {
    return op.kind == CUPTI_ACTIVITY_KIND_MEMCPY   ? fmt::format("memcpy {} B", op.bytes)
           : op.kind == CUPTI_ACTIVITY_KIND_MEMSET ? fmt::format("memset {} B", op.bytes)
                                                   : "kernel " + op.name;
  };
  std::vector<TracedWork> work;  // outside graphs: judged by structure as well
  for (auto it = operations.begin(); it != operations.end(); ++it) {
    if (it == marker)
      continue;
    ++trace.operations;
    if (it->graph != 0)
      ++trace.graph_operations;
    else
      work.push_back({describe(*it), {it->context, it->stream}, it->correlation,
                      it->host_waited});
    if (it->stream != marker->stream) {
      const double margin =
          static_cast<double>(marker->start) - static_cast<double>(it->end);
      trace.off_stream_margin_ns =
          trace.off_stream_margin_ns ? std::min(*trace.off_stream_margin_ns, margin) : margin;
    }
    if (it->end <= marker->start)
      continue;
    TracedOperation late;
    late.stream = it->stream;
    late.ns_after_end = static_cast<double>(it->end - marker->start);
    late.what = describe(*it);
    trace.after_end.push_back(std::move(late));
  }
  // The harness records its start and stop events inside the traced window, so a trace whose
  // CUPTI took the event kind but holds no event record cannot be judged by structure.
  if (!joins_enabled_) {
    trace.joins_not_checked = joins_reason_.empty() ? "not enabled" : joins_reason_;
  } else if (records.events.empty()) {
    trace.joins_not_checked = "CUPTI delivered no CUDA event record (the harness records two in "
                              "every traced call): judged by the timeline alone";
  } else {
    trace.joins_checked = true;
    for (const std::size_t i :
         find_unjoined_work(work, records.events, records.syncs,
                            {marker->context, marker->stream}, marker->correlation)) {
      TracedOperation loose;
      loose.what = work[i].what;
      loose.stream = work[i].stream.stream;
      trace.unjoined.push_back(std::move(loose));
    }
  }
  return trace;
}

}  // namespace aisp
