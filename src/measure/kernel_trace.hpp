// Traces every kernel, copy and memset a variant's run() puts on the GPU, through CUPTI's
// activity API (loaded with dlopen at run time, so the binary starts where CUPTI is absent), and
// tells which of them ended after the run's end on ctx.stream(). Host time against event time
// (work_inside_stream) can only bound such work by an allowance; a trace sees each operation's
// stream and end time, so work forked onto a second stream and joined back passes and work left
// running past the end fails however small it is (docs/integrity.md, "Escaped work").
//
// The end is a marker: a 16-byte memset the harness enqueues on ctx.stream() right after the
// sample's stop event. It starts only once everything before it on the stream (and everything
// joined into it) has finished, so an operation of run() that ends after the marker starts was
// not ordered before the end of the timed region.
//
// That timeline misses slack: under CUPTI a call runs milliseconds slower, so tens of
// microseconds of unjoined side work still end before the marker. The trace therefore also
// records cudaEventRecord, cudaStreamWaitEvent and the synchronize calls, and checks the call's
// structure (measure/stream_join_analysis.hpp): every operation on another stream must be
// joined back into the end stream, or waited for by the host, before the marker, however early
// it happened to finish.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aisp {

struct TracedOperation {
  std::string what;  // "kernel side_work", "memcpy 4096 B", "memset 64 B"
  std::uint32_t stream = 0;
  double ns_after_end = 0;  // how long after the marker started it ended
};

struct KernelTrace {
  bool traced = false;
  std::string not_traced;      // why, when not traced ("CUPTI unavailable: ...")
  std::size_t operations = 0;  // kernels, copies and memsets of run(), the marker excluded
  std::uint32_t end_stream = 0;
  std::vector<TracedOperation> after_end;  // ended after the marker started
  // Of the operations on other streams than the end stream, how long before the marker's start
  // the last one ended (ns; negative: after it). Unset when every operation ran on the end
  // stream. Shows how close a side stream's work came to escaping the timed region.
  std::optional<double> off_stream_margin_ns;
  // The structural check: whether it ran (CUPTI gave event and synchronization records), why
  // not otherwise, and the operations on other streams never joined back before the end.
  bool joins_checked = false;
  std::string joins_not_checked;
  std::size_t graph_operations = 0;  // run by a graph launch: judged by the timeline alone
  std::vector<TracedOperation> unjoined;
  bool clean() const { return after_end.empty() && unjoined.empty(); }
};

class KernelTracer {
 public:
  // Loads CUPTI and registers its buffers. Never throws: an unusable CUPTI makes available()
  // false with the reason, and every trace says "not traced".
  KernelTracer();
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  bool available() const { return available_; }
  const std::string& unavailable_reason() const { return reason_; }

  // Around one call: begin() before run() (after the flush and its synchronize), end_on(stream)
  // right after the stop event, finish() after the device-wide synchronize.
  void begin();
  void end_on(cudaStream_t stream);
  KernelTrace finish();

 private:
  bool available_ = false;
  std::string reason_;
  void* library_ = nullptr;
  void* marker_ = nullptr;  // 16 bytes of device memory
  std::uint32_t end_stream_ = 0;
  bool active_ = false;
  // CUPTI's activity kinds stay enabled from the first begin() to the tracer's end: enabling them
  // costs the next launches time, which would shift a traced call's timing.
  bool enabled_ = false;
  // Whether CUPTI took the event and synchronization kinds the structural check needs.
  bool joins_enabled_ = false;
  std::string joins_reason_;
};

}  // namespace aisp
