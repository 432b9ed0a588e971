// Which Nsight Compute pass `bench run --profile` adds after each pair's timed measurement
// (docs/profiling.md): none, the minimal metric set (`--profile ncu`) or the deep one.
#pragma once

#include <optional>
#include <string_view>

namespace aisp {

enum class ProfileSet { none, minimal, deep };

// The --profile value that selects `set`: "none", "ncu", "deep".
std::string_view profile_flag_name(ProfileSet set);
// The name results record under profile.set: "none", "minimal", "deep".
std::string_view profile_set_name(ProfileSet set);
// The inverse of profile_flag_name; nullopt for anything else.
std::optional<ProfileSet> parse_profile_flag(std::string_view value);
// "none, ncu, deep": what --profile accepts, for messages.
inline constexpr std::string_view kProfileFlagValues = "none, ncu, deep";

}  // namespace aisp
