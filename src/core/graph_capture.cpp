#include "aisp/graph_capture.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "core/cuda_handles.hpp"

namespace aisp {

struct CapturedGraph::Handles {
  CudaGraphExec exec;
};

namespace {

void check_capture_step(cudaError_t status, const char* step) {
  if (status == cudaSuccess) {
    return;
  }
  cudaGetLastError();  // the failure is reported by the exception, not left for the next check
  throw GraphCaptureError(
      static_cast<int>(status),
      fmt::format("graph capture: {} failed: {} ({}); the captured work holds a call a graph "
                  "cannot record (a synchronize, a host-blocking copy, another thread's work on "
                  "the stream)",
                  step, cudaGetErrorString(status), cudaGetErrorName(status)));
}

}  // namespace

const CapturedGraph::Handles& CapturedGraph::handles_or_throw(const char* caller) const {
  if (handles_ == nullptr) {
    throw std::logic_error(
        fmt::format("CapturedGraph::{}: no graph; make one with aisp::capture_graph()", caller));
  }
  return *handles_;
}

CapturedGraph::CapturedGraph() = default;
CapturedGraph::~CapturedGraph() = default;
CapturedGraph::CapturedGraph(CapturedGraph&& other) noexcept = default;
CapturedGraph& CapturedGraph::operator=(CapturedGraph&& other) noexcept = default;

void CapturedGraph::launch(cudaStream_t stream) const {
  AISP_CUDA_CHECK(cudaGraphLaunch(handles_or_throw("launch").exec.get(), stream));
}

void CapturedGraph::upload(cudaStream_t stream) const {
  AISP_CUDA_CHECK(cudaGraphUpload(handles_or_throw("upload").exec.get(), stream));
}

CapturedGraph capture_graph(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue) {
  AISP_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue(stream);
  } catch (...) {
    cudaGraph_t abandoned = nullptr;
    static_cast<void>(cudaStreamEndCapture(stream, &abandoned));  // the first error wins
    const CudaGraph discard(abandoned);
    throw;
  }
  cudaGraph_t raw_graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &raw_graph);
  const CudaGraph graph(raw_graph);
  check_capture_step(ended, "cudaStreamEndCapture");
  cudaGraphExec_t raw_exec = nullptr;
  check_capture_step(cudaGraphInstantiate(&raw_exec, graph.get(), 0), "cudaGraphInstantiate");
  CapturedGraph captured;
  captured.handles_ = std::make_unique<CapturedGraph::Handles>();
  captured.handles_->exec = CudaGraphExec(raw_exec);
  return captured;
}

}  // namespace aisp
