// Where ctx.mark(name) goes. The context knows only this interface: the measurement attaches a
// recorder (measure/mark_recorder.hpp) to the contexts it times, around timed samples; with
// nothing attached (verification, profiling) a mark does nothing. docs/contract.md ("Marks").
#pragma once

#include <cuda_runtime_api.h>

#include <string_view>

namespace aisp {

class MarkSink {
 public:
  virtual ~MarkSink() = default;

  // ctx.mark(name) inside run(): `stream` is the context's stream (nullptr for CPU variants).
  // Throws for a mark the contract forbids; the exception propagates out of run().
  virtual void record(std::string_view name, cudaStream_t stream) = 0;
};

}  // namespace aisp
