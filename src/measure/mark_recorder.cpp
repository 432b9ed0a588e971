#include "measure/mark_recorder.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "aisp/check.hpp"

namespace aisp {

void MarkRecorder::begin_run(Clock::time_point host_start) {
  host_start_ = host_start;
  this_run_.clear();
}

cudaEvent_t MarkRecorder::event_for(const std::string& name) {
  for (const auto& [known, event] : events_) {
    if (known == name) {
      return event.get();
    }
  }
  return events_.emplace_back(name, CudaEvent()).second.get();
}

void MarkRecorder::record(std::string_view name, cudaStream_t stream) {
  if (name.empty()) {
    throw std::invalid_argument("ctx.mark(\"\"): a mark needs a name, such as \"first_token\"");
  }
  const auto same = [&](const Reached& reached) { return reached.name == name; };
  if (std::any_of(this_run_.begin(), this_run_.end(), same)) {
    throw std::invalid_argument(fmt::format(
        "ctx.mark(\"{}\") was reached twice in one run(): each name marks one point per run; "
        "give the points different names",
        name));
  }
  if (this_run_.size() >= kMaxMarksPerRun) {
    throw std::invalid_argument(fmt::format(
        "ctx.mark(\"{}\"): more than {} marks in one run(); marks are for a few points (the first "
        "token, the end of prefill), not one per loop iteration",
        name, kMaxMarksPerRun));
  }
  Reached reached;
  reached.name = std::string(name);
  if (gpu_) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    AISP_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone) {
      throw std::invalid_argument(fmt::format(
          "ctx.mark(\"{}\") on a stream under graph capture: a variant that marks is timed call "
          "by call; do not capture run() yourself around a mark",
          name));
    }
    reached.event = event_for(reached.name);
    AISP_CUDA_CHECK(cudaEventRecord(reached.event, stream));
  } else {
    reached.host_time = Clock::now();
  }
  this_run_.push_back(std::move(reached));
  if (std::find(names_seen_.begin(), names_seen_.end(), name) == names_seen_.end()) {
    names_seen_.emplace_back(name);
  }
}

std::vector<std::pair<std::string, double>> MarkRecorder::resolve(cudaEvent_t start) const {
  std::vector<std::pair<std::string, double>> marks;
  marks.reserve(this_run_.size());
  for (const Reached& reached : this_run_) {
    double ms = 0;
    if (gpu_) {
      float elapsed = 0;
      AISP_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, reached.event));
      ms = elapsed;
    } else {
      ms = std::chrono::duration<double, std::milli>(reached.host_time - host_start_).count();
    }
    marks.emplace_back(reached.name, ms);
  }
  return marks;
}

}  // namespace aisp
