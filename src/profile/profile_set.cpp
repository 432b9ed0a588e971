#include "profile/profile_set.hpp"

#include <array>
#include <utility>

namespace aisp {
namespace {

struct ProfileSetNames {
  ProfileSet set;
  std::string_view flag;  // --profile value
  std::string_view name;  // results' profile.set
};

constexpr std::array<ProfileSetNames, 3> kNames{{
    {ProfileSet::none, "none", "none"},
    {ProfileSet::minimal, "ncu", "minimal"},
    {ProfileSet::deep, "deep", "deep"},
}};

}  // namespace

std::string_view profile_flag_name(ProfileSet set) {
  for (const auto& names : kNames) {
    if (names.set == set) {
      return names.flag;
    }
  }
  return "none";
}

std::string_view profile_set_name(ProfileSet set) {
  for (const auto& names : kNames) {
    if (names.set == set) {
      return names.name;
    }
  }
  return "none";
}

std::optional<ProfileSet> parse_profile_flag(std::string_view value) {
  for (const auto& names : kNames) {
    if (names.flag == value) {
      return names.set;
    }
  }
  return std::nullopt;
}

}  // namespace aisp
