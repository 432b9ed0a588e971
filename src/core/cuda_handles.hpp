// Owning handles for the CUDA objects the harness creates: device and pinned memory, streams,
// events, graphs and instantiated graphs. Each is created with a checked call and released in its
// destructor, so a measurement that throws frees what it allocated. The one set the timer, the
// worker, `bench peak` and the profiler use (chapters get aisp/graph_capture.hpp). Host code
// only; usable from .cu and .cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "aisp/check.hpp"
#include "aisp/context.hpp"

namespace aisp {

// Moves by transferring the pointer; `release` frees it.
template <class Pointer, void (*release)(Pointer)>
class CudaOwner {
 public:
  CudaOwner() = default;
  explicit CudaOwner(Pointer pointer) : pointer_(pointer) {}
  ~CudaOwner() { reset(); }
  CudaOwner(const CudaOwner&) = delete;
  CudaOwner& operator=(const CudaOwner&) = delete;
  CudaOwner(CudaOwner&& other) noexcept : pointer_(std::exchange(other.pointer_, Pointer{})) {}
  CudaOwner& operator=(CudaOwner&& other) noexcept {
    if (this != &other) {
      reset();
      pointer_ = std::exchange(other.pointer_, Pointer{});
    }
    return *this;
  }
  Pointer get() const { return pointer_; }

 private:
  void reset() {
    if (pointer_ != Pointer{}) {
      release(pointer_);
      pointer_ = Pointer{};
    }
  }
  Pointer pointer_{};
};

// Release functions: errors are ignored, because a destructor cannot report them and a failed
// free during unwinding must not hide the error that caused it.
inline void free_device(void* pointer) { static_cast<void>(cudaFree(pointer)); }
inline void free_pinned(void* pointer) { static_cast<void>(cudaFreeHost(pointer)); }
inline void destroy_stream(cudaStream_t stream) { static_cast<void>(cudaStreamDestroy(stream)); }
inline void destroy_event(cudaEvent_t event) { static_cast<void>(cudaEventDestroy(event)); }
inline void destroy_graph(cudaGraph_t graph) { static_cast<void>(cudaGraphDestroy(graph)); }
inline void destroy_graph_exec(cudaGraphExec_t exec) {
  static_cast<void>(cudaGraphExecDestroy(exec));
}

// `bytes` of device memory on the current device.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes) : bytes_(bytes) {
    void* pointer = nullptr;
    AISP_CUDA_CHECK(cudaMalloc(&pointer, bytes));
    memory_ = Owner(pointer);
  }
  void* get() const { return memory_.get(); }
  template <class T>
  T* as() const {
    return static_cast<T*>(memory_.get());
  }
  std::size_t bytes() const { return bytes_; }

 private:
  using Owner = CudaOwner<void*, free_device>;
  Owner memory_;
  std::size_t bytes_ = 0;
};

// `bytes` of page-locked host memory (cudaMallocHost).
class PinnedHostMemory {
 public:
  explicit PinnedHostMemory(std::size_t bytes) : bytes_(bytes) {
    void* pointer = nullptr;
    AISP_CUDA_CHECK(cudaMallocHost(&pointer, bytes));
    memory_ = Owner(pointer);
  }
  void* get() const { return memory_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  using Owner = CudaOwner<void*, free_pinned>;
  Owner memory_;
  std::size_t bytes_ = 0;
};

// A non-blocking stream on the current device: it does not synchronize with the legacy default
// stream, so nothing else in the process serializes with the measurement.
class CudaStream {
 public:
  CudaStream() {
    cudaStream_t stream = nullptr;
    AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    stream_ = Owner(stream);
  }
  cudaStream_t get() const { return stream_.get(); }

 private:
  using Owner = CudaOwner<cudaStream_t, destroy_stream>;
  Owner stream_;
};

class CudaEvent {
 public:
  CudaEvent() {
    cudaEvent_t event = nullptr;
    AISP_CUDA_CHECK(cudaEventCreate(&event));
    event_ = Owner(event);
  }
  cudaEvent_t get() const { return event_.get(); }

 private:
  using Owner = CudaOwner<cudaEvent_t, destroy_event>;
  Owner event_;
};

// One non-blocking stream per GPU of a multi-GPU run (device d's at index d), with peer access
// enabled between every two of the GPUs where the hardware allows it (cudaDeviceCanAccessPeer):
// ContextOptions::device_streams takes handles(). Leaves device 0 current.
class RunDeviceStreams {
 public:
  explicit RunDeviceStreams(int devices) {
    for (int d = 0; d < devices; ++d) {
      const ScopedDevice on(d);
      streams_.emplace_back();
    }
    for (int d = 0; d < devices; ++d)
      for (int peer = 0; peer < devices; ++peer) {
        int can = 0;
        if (peer == d) continue;
        AISP_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, d, peer));
        if (can == 0) continue;
        const ScopedDevice on(d);
        const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled)
          static_cast<void>(cudaGetLastError());  // an earlier run in this process enabled it
        else
          AISP_CUDA_CHECK(status);
      }
  }
  std::vector<cudaStream_t> handles() const {
    std::vector<cudaStream_t> handles;
    for (const CudaStream& s : streams_) handles.push_back(s.get());
    return handles;
  }

 private:
  std::vector<CudaStream> streams_;
};

using CudaGraph = CudaOwner<cudaGraph_t, destroy_graph>;
using CudaGraphExec = CudaOwner<cudaGraphExec_t, destroy_graph_exec>;

}  // namespace aisp
