#include "measure/mark_series.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "measure/statistics.hpp"

namespace aisp {
namespace {

std::vector<std::string> sorted_names(const std::vector<std::pair<std::string, double>>& sample) {
  std::vector<std::string> names;
  for (const auto& [name, ms] : sample) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

void MarkSeries::add(const std::vector<std::pair<std::string, double>>& sample) {
  if (samples_ == 0) {
    for (const auto& [name, ms] : sample) {
      marks_.push_back(MarkMeasurement{name, {}, {}});
    }
  }
  std::vector<std::string> expected;
  for (const MarkMeasurement& mark : marks_) expected.push_back(mark.name);
  std::sort(expected.begin(), expected.end());
  if (sorted_names(sample) != expected) {
    throw std::runtime_error(fmt::format(
        "run() reached the marks [{}] in its first timed sample and [{}] in sample {}: every "
        "run() must reach the same ctx.mark points",
        fmt::join(expected, ", "), fmt::join(sorted_names(sample), ", "), samples_ + 1));
  }
  for (const auto& [name, ms] : sample) {
    for (MarkMeasurement& mark : marks_) {
      if (mark.name == name) mark.ms.push_back(ms);
    }
  }
  ++samples_;
}

std::vector<MarkMeasurement> MarkSeries::summarize() const {
  std::vector<MarkMeasurement> summary = marks_;
  for (MarkMeasurement& mark : summary) {
    mark.stats = aisp::summarize(mark.ms);
  }
  return summary;
}

}  // namespace aisp
