#include "measure/sampling_progress.hpp"

#include <fmt/format.h>

#include <iterator>

namespace aisp {
namespace {

std::string describe_variant(const char* name, const StoppingCriterion& criterion, double t) {
  const MeasurementSettings& settings = criterion.settings();
  if (settings.fixed_samples > 0) {
    return fmt::format("{} {} of {} samples", name, criterion.count(), settings.fixed_samples);
  }
  // A variant that stopped takes no more samples, so its criterion still says stop now.
  if (criterion.should_stop(t)) {
    return fmt::format("{} done: {}", name, criterion.reason(t));
  }
  if (!criterion.minimums_met()) {
    // Only what is still missing: the sample count, the summed sample time, or both.
    std::string missing;
    if (criterion.count() < static_cast<std::size_t>(settings.min_samples))
      missing += fmt::format("{} of min {} samples, ", criterion.count(), settings.min_samples);
    else
      missing += fmt::format("{} samples, ", criterion.count());
    if (criterion.summed_seconds() < settings.min_time_s)
      missing +=
          fmt::format("{:.2f} of min {:g} s, ", criterion.summed_seconds(), settings.min_time_s);
    return fmt::format("{} {}noise {:.2f}%", name, missing, 100 * criterion.noise());
  }
  return fmt::format("{} {} samples, noise {:.2f}% (target {:.2f}%)", name, criterion.count(),
                     100 * criterion.noise(), 100 * settings.max_noise);
}

}  // namespace

std::string describe_sampling_progress(const InterleavedSeries& series,
                                       double seconds_since_start) {
  static constexpr const char* kNames[] = {"baseline", "optimized", "library reference"};
  const double t = seconds_since_start;
  std::string text;
  for (std::size_t i = 0; i < series.samples.size(); ++i) {
    const char* name = i < std::size(kNames) ? kNames[i] : "source";
    text += (i == 0 ? "" : "; ") + describe_variant(name, series.samples[i].criterion, t);
  }
  if (series.samples.empty()) return fmt::format("{:.1f} s", t);
  const MeasurementSettings& settings = series.samples.front().criterion.settings();
  if (settings.fixed_samples > 0) return text + fmt::format("; {:.1f} s", t);
  return text + fmt::format("; {:.1f} s of max {:g} s", t, settings.max_time_s);
}

}  // namespace aisp
