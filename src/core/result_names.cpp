#include "core/result_names.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace aisp {
namespace {

template <class Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<PairStatus, 7> kPairStatusNames{{
    {PairStatus::passed, "passed"},
    {PairStatus::failed, "failed"},
    {PairStatus::skipped, "skipped"},
    {PairStatus::timed_out, "timed_out"},
    {PairStatus::crashed, "crashed"},
    {PairStatus::interrupted, "interrupted"},
    {PairStatus::quarantined, "quarantined"},
}};

constexpr NameTable<VerifyPhase, 3> kVerifyPhaseNames{{
    {VerifyPhase::detect, "detect"},
    {VerifyPhase::quarantine, "quarantine"},
    {VerifyPhase::gate, "gate"},
}};

constexpr NameTable<TimingMethod, 3> kTimingMethodNames{{
    {TimingMethod::cuda_events, "cuda_events"},
    {TimingMethod::graph_replay, "graph_replay"},
    {TimingMethod::host_clock, "host_clock"},
}};

constexpr NameTable<ProfileStatus, 3> kProfileStatusNames{{
    {ProfileStatus::collected, "collected"},
    {ProfileStatus::skipped, "skipped"},
    {ProfileStatus::failed, "failed"},
}};

constexpr NameTable<LibraryRole, 3> kLibraryRoleNames{{
    {LibraryRole::reference, "reference"},
    {LibraryRole::timed, "timed"},
    {LibraryRole::baseline, "baseline"},
}};

template <class Enum, std::size_t N>
std::string_view name_of(const NameTable<Enum, N>& names, Enum value) {
  for (const auto& [known, name] : names) {
    if (known == value) {
      return name;
    }
  }
  return "unknown";
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const NameTable<Enum, N>& names, std::string_view name) {
  for (const auto& [value, known_name] : names) {
    if (known_name == name) {
      return value;
    }
  }
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::string listed(const NameTable<Enum, N>& names) {
  std::string list;
  for (const auto& [value, name] : names) {
    list += (list.empty() ? "" : ", ");
    list += name;
  }
  return list;
}

}  // namespace

std::string_view pair_status_name(PairStatus status) { return name_of(kPairStatusNames, status); }
std::string_view timing_method_name(TimingMethod method) {
  return name_of(kTimingMethodNames, method);
}
std::string_view verify_phase_name(VerifyPhase phase) { return name_of(kVerifyPhaseNames, phase); }
std::string_view profile_status_name(ProfileStatus status) {
  return name_of(kProfileStatusNames, status);
}

std::string_view library_role_name(LibraryRole role) { return name_of(kLibraryRoleNames, role); }

std::optional<PairStatus> parse_pair_status(std::string_view name) {
  return value_of(kPairStatusNames, name);
}
std::optional<TimingMethod> parse_timing_method(std::string_view name) {
  return value_of(kTimingMethodNames, name);
}
std::optional<VerifyPhase> parse_verify_phase(std::string_view name) {
  return value_of(kVerifyPhaseNames, name);
}
std::optional<ProfileStatus> parse_profile_status(std::string_view name) {
  return value_of(kProfileStatusNames, name);
}

std::optional<LibraryRole> parse_library_role(std::string_view name) {
  return value_of(kLibraryRoleNames, name);
}

std::string pair_status_choices() { return listed(kPairStatusNames); }
std::string timing_method_choices() { return listed(kTimingMethodNames); }
std::string verify_phase_choices() { return listed(kVerifyPhaseNames); }
std::string profile_status_choices() { return listed(kProfileStatusNames); }
std::string library_role_choices() { return listed(kLibraryRoleNames); }

}  // namespace aisp
