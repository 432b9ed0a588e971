// What every command reports as a mistake in how it was called, and the checks of flag values
// more than one command shares.
#pragma once

#include <stdexcept>
#include <string_view>

namespace aisp {

// A bad flag, value or combination: printed as "error: <message>", exit code 2 (kExitUsage).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A percentage flag's value as a fraction: 2 -> 0.02. Throws UsageError for a value outside
// [0, 1000) or NaN: "--threshold 5000: must be a percentage in [0, 1000), e.g. 2 for 2%"
// (`example_percent` is the flag's default).
double fraction_from_percent_flag(std::string_view flag, double percent, double example_percent);
// The same from the flag's text, which must be a whole finite number: "--threshold abc" is refused
// with the range, as every other flag's bad value is (not with CLI11's "Could not convert").
double fraction_from_percent_flag(std::string_view flag, std::string_view text,
                                  double example_percent);

// A flag's text as a finite number; throws UsageError "<flag> <text>: must be <allowed>".
double number_from_flag(std::string_view flag, std::string_view text, std::string_view allowed);

}  // namespace aisp
