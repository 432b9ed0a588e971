#include "cli/usage_error.hpp"

#include <fmt/format.h>

namespace aisp {

double fraction_from_percent_flag(std::string_view flag, double percent, double example_percent) {
  if (!(percent >= 0 && percent < 1000)) {
    throw UsageError(fmt::format("{} {:g}: must be a percentage in [0, 1000), e.g. {:g} for {:g}%",
                                 flag, percent, example_percent, example_percent));
  }
  return percent / 100.0;
}

}  // namespace aisp
