// The ctx.mark points of a variant's timed samples, gathered sample by sample and summarized
// into MarkMeasurement (statistics per name). Every run() must reach the same marks.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

class MarkSeries {
 public:
  // One sample's marks in the order reached (TimedSample::marks_ms). Throws std::runtime_error
  // naming both sets when this sample reached other marks than the first one did.
  void add(const std::vector<std::pair<std::string, double>>& sample);

  // A MarkMeasurement per name, in the order the first sample reached them; empty when no
  // sample marked anything.
  std::vector<MarkMeasurement> summarize() const;

 private:
  std::vector<MarkMeasurement> marks_;
  std::size_t samples_ = 0;
};

}  // namespace aisp
