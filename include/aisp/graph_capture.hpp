// Record once, replay many: the work a function enqueues on a stream, captured into a CUDA graph
// and instantiated once, so that every later launch submits all of it with one call. The host
// validates and encodes each kernel, copy and memset once, at instantiation, instead of at every
// launch, and the GPU steps from node to node without waiting on the host. For a run() of many
// small launches, capture them in setup() and launch the graph in run():
//
//   void setup(aisp::Context& ctx) override {
//     Problem::setup(ctx);
//     graph_ = aisp::capture_graph(ctx.stream(), [&](cudaStream_t s) { enqueue_chain(s); });
//     graph_.upload(ctx.stream());
//   }
//   void run(aisp::Context& ctx) override { graph_.launch(ctx.stream()); }
//
// The graph replays the captured calls on the same buffers with the same arguments: capture
// after the buffers are allocated, and capture again if they change. chapters/ch01's
// launch_graph pair measures what it saves.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>

#include "aisp/check.hpp"

namespace aisp {

// CUDA would not end the capture or instantiate its graph: something in the captured work cannot
// be recorded (a synchronizing call, a host-blocking copy, another thread's work on the stream).
// code() is the cudaError_t.
class GraphCaptureError : public CudaError {
 public:
  using CudaError::CudaError;
};

// An instantiated graph, released with the object (after teardown, when the variant goes).
class CapturedGraph {
 public:
  CapturedGraph();  // empty: launch() and upload() throw std::logic_error
  ~CapturedGraph();
  CapturedGraph(CapturedGraph&& other) noexcept;
  CapturedGraph& operator=(CapturedGraph&& other) noexcept;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  // Enqueues the whole graph on `stream` (cudaGraphLaunch): the captured calls again, in order.
  void launch(cudaStream_t stream) const;
  // Moves the graph to the device ahead of its first launch (cudaGraphUpload), so that launch
  // does not pay for it. Asynchronous on `stream`.
  void upload(cudaStream_t stream) const;
  bool empty() const { return handles_ == nullptr; }

 private:
  friend CapturedGraph capture_graph(cudaStream_t stream,
                                     const std::function<void(cudaStream_t)>& enqueue);
  struct Handles;  // owns the instantiated graph (src/core/graph_capture.cpp)
  const Handles& handles_or_throw(const char* caller) const;
  std::unique_ptr<Handles> handles_;
};

// Captures what `enqueue(stream)` puts on `stream` and instantiates it. Nothing runs during the
// capture: launches are recorded, not executed. The capture is thread-local
// (cudaStreamCaptureModeThreadLocal): only this thread's CUDA calls are checked against it. When
// `enqueue` throws, the capture is ended and discarded and the exception propagates; when CUDA
// refuses to end the capture or instantiate the graph, GraphCaptureError. Either way the stream
// is left out of capture mode, usable again.
CapturedGraph capture_graph(cudaStream_t stream,
                            const std::function<void(cudaStream_t)>& enqueue);

}  // namespace aisp
