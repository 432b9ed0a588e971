// Points a variant marks inside run() with ctx.mark("first_token"): the time from the start of
// run() to that point of its work, per name, for every timed sample. GPU variants record a CUDA
// event on their stream at the mark (the time is the stream's, not the host's); CPU variants read
// the steady clock. Outside timed samples (verification, profiling) no recorder is attached and
// ctx.mark does nothing. docs/contract.md ("Marks") describes the contract.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cuda_handles.hpp"
#include "core/mark_sink.hpp"

namespace aisp {

// A run() may mark at most this many points (a guard against a mark inside a loop).
inline constexpr std::size_t kMaxMarksPerRun = 16;

class MarkRecorder final : public MarkSink {
 public:
  using Clock = std::chrono::steady_clock;

  explicit MarkRecorder(bool gpu) : gpu_(gpu) {}
  ~MarkRecorder() override = default;
  MarkRecorder(const MarkRecorder&) = delete;
  MarkRecorder& operator=(const MarkRecorder&) = delete;

  // Before each observed run(): forgets the previous run's marks. `host_start` is where CPU
  // marks count from.
  void begin_run(Clock::time_point host_start = Clock::now());

  // ctx.mark(name) during the run. Throws std::invalid_argument for an empty name, a name marked
  // twice in one run, more than kMaxMarksPerRun marks, or a GPU mark on a stream under graph
  // capture; CudaError when the event cannot be recorded.
  void record(std::string_view name, cudaStream_t stream) override;

  // After the run's work is complete (its stream synchronized): each mark of this run, in the
  // order reached, in ms from `start` (the event recorded before run() for GPU variants; unused
  // for CPU ones).
  std::vector<std::pair<std::string, double>> resolve(cudaEvent_t start) const;

  // Every name marked since the recorder was made, in the order first reached.
  const std::vector<std::string>& names_seen() const { return names_seen_; }

 private:
  cudaEvent_t event_for(const std::string& name);

  bool gpu_;
  Clock::time_point host_start_{};
  std::vector<std::pair<std::string, CudaEvent>> events_;  // one per name, reused across runs
  struct Reached {
    std::string name;
    cudaEvent_t event = nullptr;    // GPU
    Clock::time_point host_time{};  // CPU
  };
  std::vector<Reached> this_run_;
  std::vector<std::string> names_seen_;
};

}  // namespace aisp
